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

// One module per command (or command group). Each exports register(program).
const registrars: Array<(program: Command) => void> = [
  registerList,
  registerResolve,
  registerLifecycle,
  registerWeb,
  registerExport,
  registerProxy,
  registerSsh,
  registerCp,
  registerBench,
  registerResults,
  registerSsmShell,
  registerConsole,
  registerSg,
  registerStack,
  registerTunnel,
  registerImport,
  registerReplay,
];

export function registerCommands(program: Command): void {
  for (const register of registrars) register(program);
}
