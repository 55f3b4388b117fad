import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { buildProgram } from '../../../../src/node/cli/program.js';
import { registerCommands, registrars } from '../../../../src/node/cli/commands/index.js';

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

describe('a command line that names a command builds that command alone', () => {
  const topLevel = (p: Command) => p.commands.flatMap((c) => [c.name(), ...c.aliases()]).sort();
  const built = (...args: string[]) => topLevel(buildProgram((p) => registerCommands(p, ['node', 'tagssh', ...args])));
  const all = topLevel(buildProgram(registerCommands));

  it("each registrar's listed names are exactly the commands and aliases it registers, and no two share one", () => {
    for (const r of registrars) {
      const alone = new Command('tagssh');
      r.register(alone);
      assert.deepEqual(topLevel(alone), [...r.names].sort());
    }
    assert.deepEqual(registrars.flatMap((r) => r.names).sort(), all);
  });

  it("by its name or alias, after the program's own options", () => {
    assert.deepEqual(built('ssh', 'web-1', '--', 'ls', '-l'), ['forget-host-key', 'ssh']);
    assert.deepEqual(built('--debug', 'cp', 'a', 'web-1:b'), ['cp']);
    assert.deepEqual(built('ls', '--json'), ['list', 'ls']);
  });

  it('all of them for help, a mistyped command, or none', () => {
    assert.deepEqual(built('--help'), all);
    assert.deepEqual(built('help', 'ssh'), all);
    assert.deepEqual(built('shh', 'web-1'), all);
    assert.deepEqual(built(), all);
  });
});
