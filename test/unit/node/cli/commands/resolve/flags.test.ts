import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { register } from '../../../../../../src/node/cli/commands/resolve/register.js';
import { RESOLVE_ARGS } from '../../../../../../src/node/cli/commands/resolve/flags.js';

// `tagssh resolve` is parsed by commander (full CLI) or by node:util parseArgs (fast path,
// commands/resolve/main.ts): both must know exactly the same options, with the same arity.

test('the fast path parses exactly the options the commander command declares', () => {
  const program = new Command('tagssh');
  register(program);
  const cmd = program.commands.find((c) => c.name() === 'resolve');
  assert.ok(cmd);
  const commanderOpts = Object.fromEntries(cmd.options.map((o) => [o.long!.replace(/^--/, ''), o.required || o.optional ? 'string' : 'boolean']));
  const fastOpts = Object.fromEntries(Object.entries(RESOLVE_ARGS).map(([k, v]) => [k, v.type]));
  assert.deepEqual(fastOpts, commanderOpts);
});
