import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { buildProgram } from '../../../../src/node/cli/program.js';
import { registerCommands } from '../../../../src/node/cli/commands/index.js';

// Every command's one-line summary in `tagssh --help` (and each group's own --help) reads alike:
// lower-case start, no final full stop, as commander's own `help` line does.

/** Each command with its full name, subcommands included. */
function commands(c: Command, path: string[] = []): { name: string; command: Command }[] {
  return c.commands.flatMap((sub) => {
    const name = [...path, sub.name()];
    return [{ name: name.join(' '), command: sub }, ...commands(sub, name)];
  });
}

describe('tagssh --help summaries', () => {
  const program = buildProgram(registerCommands);
  const help = program.createHelp();

  it('lists every command', () => {
    const text = program.helpInformation();
    for (const c of program.commands) assert.match(text, new RegExp(`^  ${c.name()}\\b`, 'm'), c.name());
  });

  for (const { name, command } of commands(program)) {
    it(`tagssh ${name}: lower-case start, no final full stop`, () => {
      const summary = help.subcommandDescription(command);
      assert.ok(summary.length > 0, 'has a summary');
      // A capitalised ordinary word starts a sentence ("Open the…"); a name such as TeraTerm or EC2 may start one.
      assert.doesNotMatch(summary, /^[A-Z][a-z]+\b/);
      assert.doesNotMatch(summary, /\.$/);
    });
  }
});
