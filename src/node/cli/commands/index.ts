import type { Command } from 'commander';
import { register as registerLifecycle } from './lifecycle.js';
import { register as registerList } from './list.js';
import { register as registerResolve } from './resolve.js';
import { register as registerWeb } from './web.js';
import { register as registerExport } from './export.js';
import { register as registerProxy } from './proxy.js';
import { register as registerSsh } from './ssh.js';
import { register as registerCp } from './cp.js';
import { register as registerBench } from './bench.js';
import { register as registerResults } from './results.js';
import { register as registerSsmShell } from './ssmShell.js';
import { register as registerTunnel } from './tunnel.js';
import { register as registerSg } from './sg.js';
import { register as registerStack } from './stack.js';

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
  registerSg,
  registerStack,
  registerTunnel,
];

export function registerCommands(program: Command): void {
  for (const register of registrars) register(program);
}
