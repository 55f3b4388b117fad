import type { Command } from 'commander';
import { register as registerLifecycle } from './lifecycle/register.js';
import { register as registerList } from './list/register.js';
import { register as registerResolve } from './resolve/register.js';
import { register as registerWeb } from './web/register.js';
import { register as registerExport } from './export/register.js';
import { register as registerProxy } from './proxy/register.js';
import { register as registerSsh } from './ssh/register.js';
import { register as registerCp } from './cp/register.js';
import { register as registerBench } from './bench/register.js';
import { register as registerResults } from './results/register.js';
import { register as registerSsmShell } from './ssmShell/register.js';
import { register as registerTunnel } from './tunnel/register.js';
import { register as registerSg } from './sg/register.js';
import { register as registerStack } from './stack/register.js';
import { register as registerImport } from './import/register.js';
import { register as registerReplay } from './replay/register.js';
import { register as registerConsole } from './console/register.js';

// One module per command (or command group). Each exports register(program), and is listed with
// the top-level names (and aliases) it registers: a run that names one of them builds that
// command's tree alone. Building all 38 commands and subcommands with their options took 4–9 ms
// of every start, `tagssh ssh NAME` included; help, suggestions for a mistyped command and
// `tagssh help …` still see them all.
interface Registrar {
  readonly names: readonly string[];
  readonly register: (program: Command) => void;
}

export const registrars: readonly Registrar[] = [
  { names: ['list', 'ls'], register: registerList },
  { names: ['resolve'], register: registerResolve },
  { names: ['start', 'stop'], register: registerLifecycle },
  { names: ['web'], register: registerWeb },
  { names: ['export'], register: registerExport },
  { names: ['proxy'], register: registerProxy },
  { names: ['ssh', 'forget-host-key'], register: registerSsh },
  { names: ['cp'], register: registerCp },
  { names: ['bench'], register: registerBench },
  { names: ['results'], register: registerResults },
  { names: ['ssm-shell'], register: registerSsmShell },
  { names: ['console'], register: registerConsole },
  { names: ['sg'], register: registerSg },
  { names: ['stack'], register: registerStack },
  { names: ['tunnel'], register: registerTunnel },
  { names: ['import'], register: registerImport },
  { names: ['replay'], register: registerReplay },
];

/** The command a command line names: its first word that is not an option (the program's own options take no value). */
function commandNamed(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((a) => !a.startsWith('-'));
}

/** Registers every command, or, given the command line, only the one it names when that is one of them. */
export function registerCommands(program: Command, argv?: readonly string[]): void {
  const named = argv ? commandNamed(argv) : undefined;
  const only = named === undefined ? undefined : registrars.find((r) => r.names.includes(named));
  for (const r of only ? [only] : registrars) r.register(program);
}
