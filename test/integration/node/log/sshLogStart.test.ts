import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { ImportKeyPairCommand } from '@aws-sdk/client-ec2';
import { SettingsSchema } from '../../../../src/common/model/settings.js';
import { jsonSettingsStore } from '../../../../src/node/store/settings.js';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost } from '../../../lab/sshd.js';
import { runProcess, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// `tagssh ssh NAME --log` (and Settings › Session logs "every session") against a real sshd whose
// login prints a first screen before the prompt (a motd-like greeting from the login shell): the
// log is the header, then the session from its first byte. A session that fails to open leaves
// no log behind (a file named by --log that was already there is left as it was).

const root = join(import.meta.dirname, '../../../..');
const GREETING = 'Welcome to logged-host (motd line 1)';
let moto: Moto;
let host: SshdHost;
let home: string;
let stranger: string;

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh'), TERM: 'xterm-256color' });
const logsDir = () => join(home, 'tagssh', 'config', 'logs');
const logFiles = () => (existsSync(logsDir()) ? readdirSync(logsDir()) : []);

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-log-start-'));
  const key = makeKey(join(home, 'gen'), 'ed25519', { name: 'start-key' });
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  copyFileSync(key.privatePath, join(home, '.ssh', 'start-key.pem'));
  chmodSync(join(home, '.ssh', 'start-key.pem'), 0o600);
  [moto, host] = await Promise.all([startMoto(), startSshd({ address: '127.0.0.65', authorizedKeys: [key.publicKey], extraConfig: ['PrintLastLog no'] })]);
  // The lab's login HOME (see labSessionEnv): a login shell prints the greeting first, as a motd would.
  writeFileSync(join(host.dir, 'home', '.bash_profile'), `printf '%s\\r\\n' '${GREETING}'\nPS1='lab$ '\n`);
  const ec2 = moto.sdk();
  await ec2.send(new ImportKeyPairCommand({ KeyName: 'start-key', PublicKeyMaterial: readFileSync(key.publicPath) }));
  await seedInstance(ec2, { name: 'greeter', eip: host.address, keyName: 'start-key', tags: { 'tagssh:user': host.user, 'tagssh:port': String(host.port) } });
  // A key sshd does not accept (given with -i): authentication fails.
  stranger = makeKey(join(home, 'gen'), 'ed25519', { name: 'stranger-key' }).privatePath;
});

after(async () => {
  await Promise.all([host?.stop(), moto?.stop()]);
  if (host) cleanupSshd(host);
  rmSync(home, { recursive: true, force: true });
});

/** `tagssh ssh NAME ARGS…` on a real PTY, driven by `steps`. */
function onPty(name: string, args: string[], steps: readonly unknown[]): Promise<Run> {
  return runProcess(
    'python3',
    [join(root, 'test/lab/ptyDriver.py'), '24', '80', JSON.stringify(steps), '--', process.execPath, TAGSSH_BIN, 'ssh', name, '--accept-new', ...args],
    { env: env() },
  );
}

/** The log's lines after its header (the header ends with an empty line). */
function bodyOf(log: string): string[] {
  assert.match(log, /^# TagSSH session log\n/, log);
  return log.slice(log.indexOf('\n\n') + 2).split('\n');
}

describe('tagssh ssh --log: the log starts with the first byte of the session', () => {
  it('--log FILE: header, then the greeting, then the prompt', async () => {
    const file = join(home, 'greeting.log');
    const r = await onPty(
      'greeter',
      ['--log', file],
      [
        ['wait', 'lab\\$ '],
        ['send', 'echo "end-$((5*5))"; exit 0\r'],
      ],
    );
    assert.match(r.stdout, /EXIT:0\n$/, r.stdout);
    const body = bodyOf(readFileSync(file, 'utf8'));
    assert.equal(body[0], GREETING, body.join('\n'));
    assert.match(body[1]!, /^lab\$ echo "end-\$\(\(5\*5\)\)"; exit 0$/);
    assert.ok(body.includes('end-25'));
  });

  it('Settings › every session: the new file under logs/ starts the same way (0700 dir, 0600 file)', async () => {
    jsonSettingsStore(join(home, 'tagssh', 'config', 'settings.json')).set(SettingsSchema.parse({ sessionLog: { always: true, timestamps: false } }));
    const before = new Set(logFiles());
    const r = await onPty(
      'greeter',
      [],
      [
        ['wait', 'lab\\$ '],
        ['send', 'exit 0\r'],
      ],
    );
    assert.match(r.stdout, /EXIT:0\n$/, r.stdout);
    const added = logFiles().filter((f) => !before.has(f));
    assert.equal(added.length, 1, added.join());
    const file = join(logsDir(), added[0]!);
    assert.equal(bodyOf(readFileSync(file, 'utf8'))[0], GREETING);
    assert.equal(statSync(logsDir()).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });
});

describe('tagssh ssh --log: a session that fails to open leaves no log behind', () => {
  // A refused key makes the CLI offer an EC2 Instance Connect key on a terminal; the person says no.
  const declineInstanceConnect = [
    ['wait', 'y/N\\] '],
    ['send', 'n\r'],
  ];
  for (const [what, args, steps, message] of [
    ['authentication fails', () => ['-i', stranger], declineInstanceConnect, /key|authenticat/i],
    ['the host is unreachable', () => ['-p', '1'], [], /refused|reach/i],
  ] as const) {
    it(`${what}: no new file under logs/ (every session), no file for --log FILE, a file that was there unchanged`, async () => {
      jsonSettingsStore(join(home, 'tagssh', 'config', 'settings.json')).set(SettingsSchema.parse({ sessionLog: { always: true, timestamps: false } }));
      const before = logFiles();
      const r1 = await onPty('greeter', args(), steps);
      assert.doesNotMatch(r1.stdout, /EXIT:0\n$/);
      assert.match(r1.stdout, message);
      assert.deepEqual(logFiles(), before, 'no log of a session that never opened');

      const fresh = join(home, `${args()[0]}-fresh.log`);
      await onPty('greeter', [...args(), '--log', fresh], steps);
      assert.ok(!existsSync(fresh), 'the file --log named was not left behind');

      const kept = join(home, `${args()[0]}-kept.log`);
      writeFileSync(kept, 'an earlier session\n', { mode: 0o640 });
      await onPty('greeter', [...args(), '--log', kept], steps);
      assert.equal(readFileSync(kept, 'utf8'), 'an earlier session\n');
      assert.equal(statSync(kept).mode & 0o777, 0o640);
    });
  }

  it('the person gives up with Ctrl-C while it connects: no file under logs/, none for --log FILE', async () => {
    // A server that accepts and never speaks: the connection waits until the person gives up.
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, host.address, r));
    const port = String((silent.address() as AddressInfo).port);
    try {
      const before = logFiles();
      const fresh = join(home, 'gave-up.log');
      for (const extra of [[], ['--log', fresh]]) {
        const r = await onPty(
          'greeter',
          ['-p', port, ...extra],
          [
            ['wait', 'Connecting'],
            ['sleep', 0.5],
            ['send', '\x03'],
          ],
        );
        assert.match(r.stdout, /EXIT:130\n$/, r.stdout);
      }
      assert.deepEqual(logFiles(), before);
      assert.ok(!existsSync(fresh));
    } finally {
      silent.close();
    }
  });
});
