import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance, type Seeded } from '../../../lab/seed.js';
import { ERROR_CODES } from '../../../../src/common/errors.js';
import { runTagssh, type Run } from '../../../lab/run.js';

// `tagssh list / resolve / start / stop` as a user or a script runs them: stdout, stderr and
// exit codes of the real CLI (bin/tagssh.mjs) against moto.

let moto: Moto;
let home: string;
const s: Record<string, Seeded> = {};
const AWKWARD = 'db "primary" $(whoami) 日本 🎉\nline two';

function tagssh(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH ?? '', HOME: home, ...moto.env, TAGSSH_HOME: join(home, 'tagssh'), TAGSSH_POLL_MS: '100', ...env });
}

/** Errors are one line plus a "→ hint" line, never a stack trace. */
function assertCleanError(r: Run, code: keyof typeof ERROR_CODES) {
  assert.equal(r.code, ERROR_CODES[code], `exit code for ${code}; stderr: ${r.stderr}`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.ok(lines[0]?.startsWith('tagssh: '), r.stderr);
  assert.ok(
    lines.some((l) => l.trimStart().startsWith('→ ')),
    `a hint: ${r.stderr}`,
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-aws-'));
  const us = moto.sdk('us-east-1');
  s.web = await seedInstance(us, { name: 'web', eip: '127.0.0.2' });
  s.awkward = await seedInstance(us, { name: AWKWARD });
  s.dup1 = await seedInstance(us, { name: 'dup' });
  s.dup2 = await seedInstance(us, { name: 'dup' });
  s.sleepy = await seedInstance(us, { name: 'sleepy', stopped: true });
  s.toStop = await seedInstance(us, { name: 'to stop' });
  s.eu = await seedInstance(moto.sdk('eu-west-1'), { name: 'euro' });
});

after(async () => {
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

test('resolve prints only the address on stdout, exit 0', async () => {
  const r = await tagssh(['resolve', 'web']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '127.0.0.2\n');
  assert.equal(r.stderr, '');
});

test('resolve handles a name with quotes, $(), Unicode and a newline passed as one argument', async () => {
  const r = await tagssh(['resolve', AWKWARD, '--private']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `${s.awkward!.privateIp}\n`);
});

test('resolve --json gives address, kind and the instance', async () => {
  const r = await tagssh(['resolve', 'web', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.address, '127.0.0.2');
  assert.equal(j.addressKind, 'eip');
  assert.equal(j.instance.id, s.web!.id);
});

test('distinct exit codes: not found 3, ambiguous 4, stopped 5, usage 2', async () => {
  assertCleanError(await tagssh(['resolve', 'nope']), 'NOT_FOUND');
  const amb = await tagssh(['resolve', 'dup']);
  assertCleanError(amb, 'AMBIGUOUS');
  assert.ok(amb.stderr.includes(s.dup1!.id) && amb.stderr.includes(s.dup2!.id), amb.stderr);
  assert.match(amb.stderr, /--pick/);
  assertCleanError(await tagssh(['resolve', 'sleepy']), 'STOPPED');
  assert.equal((await tagssh(['resolve', 'web', '--port', 'x'])).code, ERROR_CODES.INVALID_INPUT);
  assert.equal((await tagssh(['resolve'])).code, ERROR_CODES.INVALID_INPUT);
  assert.equal((await tagssh(['list', '--cache', 'sometimes'])).code, ERROR_CODES.INVALID_INPUT);
});

test('--pick resolves one of several; --json errors are JSON on stdout too', async () => {
  const r = await tagssh(['resolve', 'dup', '--pick', s.dup2!.id]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.trim());
  const j = await tagssh(['resolve', 'dup', '--json']);
  assert.equal(j.code, ERROR_CODES.AMBIGUOUS);
  const err = JSON.parse(j.stdout).error;
  assert.equal(err.code, 'AMBIGUOUS');
  assert.deepEqual(err.details.candidates.map((c: { id: string }) => c.id).sort(), [s.dup1!.id, s.dup2!.id].sort());
});

test('--region: repeated, comma list and all', async () => {
  assertCleanError(await tagssh(['resolve', 'euro']), 'NOT_FOUND');
  assert.equal((await tagssh(['resolve', 'euro', '--region', 'us-east-1,eu-west-1'])).code, 0);
  assert.equal((await tagssh(['resolve', 'euro', '--region', 'us-east-1', '--region', 'eu-west-1'])).code, 0);
  const all = await tagssh(['list', '--json', '--region', 'all']);
  assert.equal(all.code, 0, all.stderr);
  assert.ok(JSON.parse(all.stdout).some((i: { id: string }) => i.id === s.eu!.id));
});

test('list prints a table (newlines in names escaped) and --json an array', async () => {
  const t = await tagssh(['list']);
  assert.equal(t.code, 0, t.stderr);
  const lines = t.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^NAME\s+INSTANCE\s+STATE\s+TYPE\s+ZONE\s+PUBLIC IP\s+PRIVATE IP$/);
  assert.equal(lines.length, 1 + 6, 'one line per instance, even for a name containing a newline');
  assert.ok(lines.some((l) => l.includes('127.0.0.2 (eip)')));
  assert.ok(lines.some((l) => l.includes(JSON.stringify(AWKWARD))));
  const j = await tagssh(['list', '--json']);
  const arr = JSON.parse(j.stdout);
  assert.equal(arr.length, 6); // the default region only (euro lives in eu-west-1)
  assert.equal(arr.find((i: { id: string }) => i.id === s.awkward!.id).name, AWKWARD);
});

test('start and stop by name wait, show progress on stderr and the state on stdout', async () => {
  const stop = await tagssh(['stop', 'to stop']);
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal(stop.stdout, `${s.toStop!.id} stopped\n`);
  assert.match(stop.stderr, /Stopping "to stop"/);
  assertCleanError(await tagssh(['resolve', 'to stop']), 'STOPPED');
  const start = await tagssh(['start', 'to stop', '--json']);
  assert.equal(start.code, 0, start.stderr);
  assert.equal(JSON.parse(start.stdout).state, 'running');
  assert.match(start.stderr, /Starting "to stop"/);
  assertCleanError(await tagssh(['start', 'nope']), 'NOT_FOUND');
});

test('resolve defers --help and usage errors to the full CLI: same words, exit 0 or 2', async () => {
  const help = await tagssh(['resolve', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: tagssh resolve \[options\] \[name\]/);
  const unknown = await tagssh(['resolve', 'web', '--bogus']);
  assert.equal(unknown.code, ERROR_CODES.INVALID_INPUT);
  assert.match(unknown.stderr, /unknown option '--bogus'/);
  const twoNames = await tagssh(['resolve', 'web', 'dup']);
  assert.equal(twoNames.code, ERROR_CODES.INVALID_INPUT);
  const badPort = await tagssh(['resolve', 'web', '--port', '70000']);
  assert.equal(badPort.code, ERROR_CODES.INVALID_INPUT);
  assert.match(badPort.stderr, /port/);
  // Options after the name, repeated regions and = syntax parse alike on the fast path.
  const r = await tagssh(['resolve', '--region=eu-west-1', 'euro', '--region', 'us-east-1', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).instance.id, s.eu!.id);
});

test('--help lists the commands and exits 0', async () => {
  const r = await tagssh(['--help']);
  assert.equal(r.code, 0);
  for (const c of ['list', 'resolve', 'start', 'stop']) assert.match(r.stdout, new RegExp(`\\n  ${c}\\b`));
  const rh = await tagssh(['resolve', '--help']);
  for (const f of ['--private', '--start', '--pick', '--json', '--profile', '--region']) assert.ok(rh.stdout.includes(f), f);
});
