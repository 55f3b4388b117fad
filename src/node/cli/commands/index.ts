import type { Command } from 'commander';

// One module per command (or command group). Each exports register(program).
const registrars: Array<(program: Command) => void> = [];

export function registerCommands(program: Command): void {
  for (const register of registrars) register(program);
}
