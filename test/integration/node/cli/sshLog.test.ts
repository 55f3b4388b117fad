import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCodeFor } from '../../../../src/common/errors.js';
import { SettingsSchema } from '../../../../src/common/model/settings.js';
import { jsonSettingsStore } from '../../../../src/node/store/settings.js';
import type { Moto } from '../../../lab/moto.js';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, type Seeded, sshdTags } from '../../../lab/seed.js';
import { type SshdHost } from '../../../lab/sshd.js';
import { runProcess, runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// `tagssh ssh NAME --log [FILE] [--raw] [--timestamps]` and `--snippet NAME`, on a real PTY
// against a real sshd: what the log holds (and never holds), where it goes, and wrong inputs.

const root = join(import.meta.dirname, '../../../..');
let lab: CliLab;
let moto: Moto;
let host: SshdHost;
let home: string;
let seeded: Seeded;

// A person in Tokyo: the log's times are their clock, with its offset.
const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  ...moto.env,
  HOME: home,
  TAGSSH_HOME: join(home, 'tagssh'),
  TERM: 'xterm-256color',
  TZ: 'Asia/Tokyo',
});

before(async () => {
  lab = await startCliLab({
    prefix: 'tagssh-cli-log-',
    keyName: 'log-key',
    sshd: { address: '127.0.0.23' },
  });
  ({ home, moto, host } = lab);
  const ec2 = lab.ec2;
  seeded = await seedInstance(ec2, {
    name: 'logged',
    eip: host.address,
    keyName: 'log-key',
    instanceType: 't3.small',
    imageId: 'ami-1e749f67',
    tags: { env: 'staging', ...sshdTags(host) },
  });
  // Saved the way the app saves them (the settings store every face shares).
  jsonSettingsStore(join(home, 'tagssh', 'config', 'settings.json')).set(
    SettingsSchema.parse({
      snippets: [
        { name: 'answer', command: 'echo "snip-$((40+2))"', tag: null },
        { name: 'two-lines', command: 'A=fir\necho "${A}st" "sec-ond"', tag: { key: 'env', value: 'staging' } },
        { name: 'prod-only', command: 'echo prod', tag: { key: 'env', value: 'prod' } },
      ],
    }),
  );
});

after(async () => {
  await lab?.stop();
});

/** `tagssh ssh logged ARGS…` on a real PTY, driven by `steps`. */
function onPty(args: string[], steps: unknown[]): Promise<Run> {
  return runProcess(
    'python3',
    [join(root, 'test/lab/ptyDriver.py'), '24', '80', JSON.stringify(steps), '--', process.execPath, TAGSSH_BIN, 'ssh', 'logged', '--accept-new', ...args],
    { env: env() },
  );
}

describe('tagssh ssh --log', () => {
  it('writes a 0600 plain-text log with a header naming the instance, colours stripped', async () => {
    const file = join(home, 'plain.log');
    const r = await onPty(['--log', file], [['send', 'echo "hello $((6*7))"; printf "\\033[31mred\\033[0m done\\n"; exit 0\r']]);
    assert.match(r.stdout, /EXIT:0\n$/, r.stdout);
    const log = readFileSync(file, 'utf8');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(log, new RegExp(`^# Instance: ${seeded.id}$`, 'm'));
    assert.match(log, /^# Name: logged$/m);
    assert.match(log, /^# Type: t3\.small$/m);
    assert.match(log, /^# Region: [a-z]+-[a-z]+-\d$/m);
    assert.match(log, /^# AZ: [a-z]+-[a-z]+-\d[a-z]$/m);
    assert.match(log, new RegExp(`^# Address: ${host.user}@127\\.0\\.0\\.23:${host.port}$`, 'm'));
    assert.match(log, /^# Started: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+09:00$/m);
    assert.match(log, /^hello 42$/m);
    assert.match(log, /^red done$/m);
    assert.ok(!log.includes('\x1b'), 'no escape sequence in a plain log');
  });

  it('never holds what the remote side did not echo (read -s)', async () => {
    const file = join(home, 'secret.log');
    const secret = 'pa55-w0rd-typed';
    const r = await onPty(
      ['--log', file],
      [
        ['send', 'read -r -s -p "Password: " pw; echo; echo "got ${#pw} chars"; exit 0\r'],
        ['wait', '[^"]Password: '],
        ['send', `${secret}\r`],
        ['wait', 'got 15 chars'],
      ],
    );
    assert.match(r.stdout, /EXIT:0\n$/, r.stdout);
    const log = readFileSync(file, 'utf8');
    assert.match(log, /^Password: $/m);
    assert.match(log, /^got 15 chars$/m);
    assert.ok(!log.includes(secret), log);
  });

  it('keeps the bytes as received with --raw', async () => {
    const file = join(home, 'raw.log');
    await onPty(['--log', file, '--raw'], [['send', 'printf "\\033[31mred\\033[0m\\n"; exit 0\r']]);
    assert.ok(readFileSync(file, 'utf8').includes('\x1b[31mred\x1b[0m'));
  });

  it('stamps each line with --timestamps', async () => {
    const file = join(home, 'stamped.log');
    await onPty(['--log', file, '--timestamps'], [['send', 'echo stamped-line; exit 0\r']]);
    assert.match(readFileSync(file, 'utf8'), /^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+09:00\] stamped-line$/m);
  });

  it('with no FILE, writes a new file under the config dir logs/ (0700 dir, 0600 file)', async () => {
    await onPty(['--log'], [['send', 'echo default-place; exit 0\r']]);
    const dir = join(home, 'tagssh', 'config', 'logs');
    const files = readdirSync(dir);
    assert.equal(files.length, 1, files.join());
    assert.match(files[0]!, new RegExp(`^logged_${seeded.id}_\\d{8}-\\d{6}\\.log$`), 'the default pattern {name}_{instanceId}_{yyyyMMdd-HHmmss}.log');
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, files[0]!)).mode & 0o777, 0o600);
    assert.match(readFileSync(join(dir, files[0]!), 'utf8'), /^default-place$/m);
  });
});

describe('tagssh ssh --snippet', () => {
  it('types the snippet as the first line, then stays interactive', async () => {
    const r = await onPty(
      ['--snippet', 'answer'],
      [
        ['wait', 'snip-42'],
        ['send', 'echo "still-$((1+1))"; exit 0\r'],
        ['wait', 'still-2'],
      ],
    );
    assert.match(r.stdout, /^snip-42\r?$/m, r.stdout);
    assert.match(r.stdout, /^still-2\r?$/m);
    assert.match(r.stdout, /EXIT:0\n$/);
  });

  it('types each line of a multi-line snippet kept for a tag the instance has', async () => {
    const r = await onPty(
      ['--snippet', 'two-lines'],
      [
        ['wait', 'first sec-ond'],
        ['send', 'exit 0\r'],
      ],
    );
    assert.match(r.stdout, /^first sec-ond\r?$/m, r.stdout);
  });
});

describe('tagssh ssh: wrong inputs for logs and snippets', () => {
  const bad = exitCodeFor('INVALID_INPUT');
  const cases: Array<[string, string[], RegExp, number]> = [
    ['an unknown snippet', ['--snippet', 'nope'], /No snippet named "nope"\.[\s\S]*Saved snippets: answer, two-lines, prod-only/, exitCodeFor('NOT_FOUND')],
    ['a snippet kept for another tag', ['--snippet', 'prod-only'], /Snippet "prod-only" is kept for instances tagged env=prod; logged is not/, bad],
    ['an unwritable log path', ['--log', '/nonexistent-dir/x.log'], /Cannot write the session log \/nonexistent-dir\/x\.log: ENOENT/, bad],
    ['--raw without --log', ['--raw'], /--raw only changes a session log/, bad],
    ['--timestamps without --log', ['--timestamps'], /--timestamps only changes a session log/, bad],
    ['--raw with --timestamps', ['--log', join(tmpdir(), 'never.log'), '--raw', '--timestamps'], /--timestamps cannot be combined with --raw/, bad],
    ['--snippet with a remote command', ['--snippet', 'answer', '--', 'true'], /--snippet types a saved command into an interactive session/, bad],
  ];
  for (const [what, args, message, code] of cases) {
    it(`refuses ${what}, naming the flag, before connecting`, async () => {
      const r = await runTagssh(['ssh', 'logged', '--accept-new', ...args], env());
      assert.equal(r.code, code, r.stderr);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /Connecting to/);
    });
  }
});

describe('tagssh ssh with Settings → Session logs "every session"', () => {
  it('logs a shell without --log (time stamps as set), but not a remote COMMAND', async () => {
    const store = jsonSettingsStore(join(home, 'tagssh', 'config', 'settings.json'));
    store.set({ ...store.get(), sessionLog: { ...store.get().sessionLog, always: true, timestamps: true } });
    const dir = join(home, 'tagssh', 'config', 'logs');
    const before = new Set(readdirSync(dir));
    await onPty([], [['send', 'echo "every $((3*3))"; exit 0\r']]);
    const added = readdirSync(dir).filter((f) => !before.has(f));
    assert.equal(added.length, 1, added.join());
    assert.match(readFileSync(join(dir, added[0]!), 'utf8'), /^\[\d{4}-\d\d-\d\dT[\d:.]+\+09:00\] every 9$/m);
    const r = await runTagssh(['ssh', 'logged', '--accept-new', '--', 'echo', 'cmd-out'], env());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readdirSync(dir).length, before.size + 1, 'a remote COMMAND is not a session to log');
  });
});
