import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { startSerialConsoleLab, type SerialConsoleLab } from '../../../lab/serialConsoleLab.js';
import { runProcess, runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// `tagssh console NAME` end to end: the Name resolves in moto; the account switch, the key push
// and the endpoint are the lab's serial console (test/lab/serialConsoleLab.ts: moto has neither
// API), the endpoint a real OpenSSH sshd whose INSTANCE_ID.port0 user runs a getty stand-in on
// its PTY. The lab's host key is trusted only through the test-only fingerprints file; without it
// the published table applies, and the lab's key is refused as any other would be.

const root = join(import.meta.dirname, '../../../..');
let moto: Moto;
let lab: SerialConsoleLab;
let home: string;
let nitroId: string;
let labFingerprints: string;

function env(extra: Record<string, string> = {}, opts: { fingerprints?: boolean } = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...moto.env,
    ...lab.env,
    ...(opts.fingerprints === false ? {} : { TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE: labFingerprints }),
    HOME: home,
    TAGSSH_HOME: join(home, 'tagssh'),
    TERM: 'xterm-256color',
    ...extra,
  };
}

function tagssh(args: string[], e: NodeJS.ProcessEnv = env()): Promise<Run> {
  return runTagssh(args, e, '');
}

function onPty(steps: unknown[], args: string[], e: NodeJS.ProcessEnv = env()): Promise<Run> {
  return runProcess('python3', [join(root, 'test/lab/ptyDriver.py'), '30', '100', JSON.stringify(steps), '--', process.execPath, TAGSSH_BIN, ...args], {
    env: e,
  });
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-console-'));
  moto = await startMoto();
  const ec2 = moto.sdk();
  nitroId = (await seedInstance(ec2, { name: 'serial-web', instanceType: 't3.micro' })).id;
  const xen = await seedInstance(ec2, { name: 'old-xen', instanceType: 't2.micro' });
  const locked = await seedInstance(ec2, { name: 'locked-serial', instanceType: 'm5.large' });
  await seedInstance(moto.sdk('ap-east-2'), { name: 'far-away', instanceType: 't3.micro' });
  lab = await startSerialConsoleLab({ moto: moto.endpoint, instanceIds: [nitroId, xen.id, locked.id], login: { user: 'ec2-user', password: 'lab-pass' } });
  lab.denied.add(locked.id);
  labFingerprints = lab.fingerprintsFile({ 'us-east-1': lab.hostKey.fingerprint });
});

after(async () => {
  await Promise.all([lab?.stop(), moto?.stop()]);
  rmSync(home, { recursive: true, force: true });
});

beforeEach(() => {
  lab.enabled = true;
  lab.deniedActions.clear();
});

describe('tagssh console', () => {
  it('on a terminal: reaches the login prompt, echoes what is typed (not the password), hints at a refused login, logs in, ends with the shell', async () => {
    const pushesBefore = lab.pushes.length;
    const steps = [
      ['wait', 'login: '],
      ['send', 'ec2-user\r'],
      ['wait', 'Password: '],
      ['send', 'not-the-password\r'],
      ['wait', 'Login incorrect'],
      ['wait', 'sudo passwd USER'],
      // The driver's waits search everything printed so far: each pattern names what comes after.
      ['wait', 'Login incorrect[\\s\\S]*login: '],
      ['send', 'ec2-user\r'],
      ['wait', 'Login incorrect[\\s\\S]*Password: '],
      ['send', 'lab-pass\r'],
      ['wait', 'serial\\$ '],
      ['send', 'echo typed-$((6*7))\r'],
      ['wait', 'typed-42'],
      ['send', 'exit\r'],
    ];
    const r = await onPty(steps, ['console', 'serial-web']);
    assert.match(r.stdout, /EXIT:0\s*$/, r.stdout);
    assert.match(r.stdout, /WARNING: TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE is set/);
    assert.match(r.stdout, new RegExp(`Connected to the EC2 Serial Console of serial-web \\(${nitroId}\\) as ${nitroId}\\.port0@127\\.0\\.0\\.9:\\d+`));
    assert.match(r.stdout, /ip-10-0-0-1 login: ec2-user/, 'the typed user name is echoed after the prompt');
    assert.doesNotMatch(r.stdout, /not-the-password|lab-pass/, 'a password is never echoed');
    assert.match(r.stdout, /log in with a user that has a password.*sudo passwd USER.*EC2Rescue/s);
    assert.match(r.stdout, /echo typed-\$\(\(6\*7\)\)/, 'the typed command is echoed');
    assert.match(r.stdout, /typed-42/);
    assert.equal(lab.pushes.length, pushesBefore + 1, 'one key pushed per connection');
    const push = lab.pushes.at(-1)!;
    assert.equal(push.instanceId, nitroId);
    assert.equal(push.serialPort, 0);
    assert.match(push.publicKey, /^ssh-ed25519 AAAA/);
  });

  it('Enter ~ . ends a session the getty would never end', async () => {
    const r = await onPty(
      [
        ['wait', 'login: '],
        ['send', 'x'],
        ['send', '\r~.'],
      ],
      ['console', nitroId],
    );
    assert.match(r.stdout, /EXIT:0\s*$/, r.stdout);
    assert.match(r.stdout, new RegExp(`Serial console of ${nitroId} closed`));
  });

  it('piped input (not a terminal): typed as it comes, the session ends once input has ended and the instance is quiet; --pick chooses by id', async () => {
    const r = await runTagssh(['console', 'serial-web', '--pick', nitroId, '--region', 'us-east-1'], env(), 'ec2-user\nwrong\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /login: /);
    assert.match(r.stdout, /Login incorrect/);
    assert.match(r.stderr, /sudo passwd USER/);
    const badPick = await tagssh(['console', 'serial-web', '--pick', 'i-0123456789abcdef0']);
    assert.equal(badPick.code, 3, badPick.stderr);
    assert.match(badPick.stderr, /i-0123456789abcdef0/);
  });

  it('serial console access disabled for the account: says so with the console and CLI step to enable it, pushes no key (exit 8)', async () => {
    lab.enabled = false;
    const pushes = lab.pushes.length;
    const r = await tagssh(['console', 'serial-web']);
    assert.equal(r.code, 8, r.stderr);
    assert.match(r.stderr, /EC2 Serial Console access is not enabled for this AWS account in us-east-1/);
    assert.match(r.stderr, /EC2 Serial Console › Manage › Allow/);
    assert.match(r.stderr, /aws ec2 enable-serial-console-access --region us-east-1/);
    assert.equal(lab.pushes.length, pushes);
  });

  it('an instance type without a serial console (Xen, not Nitro): named, with what to do, no key pushed (exit 2)', async () => {
    const pushes = lab.pushes.length;
    const r = await tagssh(['console', 'old-xen']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /is a t2\.micro, which has no EC2 Serial Console: only instances built on the Nitro System/);
    assert.match(r.stderr, /tagssh ssm-shell/);
    assert.equal(lab.pushes.length, pushes);
  });

  it('AccessDenied on each call names the missing permission (exit 8)', async () => {
    for (const action of ['GetSerialConsoleAccessStatus', 'DescribeInstanceTypes']) {
      lab.deniedActions.clear();
      lab.deniedActions.add(action);
      const r = await tagssh(['console', 'serial-web']);
      assert.equal(r.code, 8, r.stderr);
      assert.match(r.stderr, new RegExp(`Your AWS role lacks ec2:${action} in us-east-1`));
    }
    lab.deniedActions.clear();
    const push = await tagssh(['console', 'locked-serial']);
    assert.equal(push.code, 8, push.stderr);
    assert.match(push.stderr, /Your AWS role lacks ec2-instance-connect:SendSerialConsoleSSHPublicKey in us-east-1/);
  });

  it("an endpoint whose host key is not AWS's published one is refused before any login (exit 21)", async () => {
    const r = await tagssh(['console', 'serial-web'], env({}, { fingerprints: false }));
    assert.equal(r.code, 21, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `Refused the serial console endpoint 127\\.0\\.0\\.9:\\d+: its host key is ${lab.hostKey.fingerprint.replace(/[+/]/g, '\\$&')}, but AWS's published fingerprint for us-east-1`,
      ),
    );
    assert.match(r.stderr, /SHA256:dXwn5ma\/xadVMeBZGEru5l2gx\+yI5LDiJaLUcz0FMmw/);
    assert.doesNotMatch(r.stderr, /WARNING/);
    // The test-only file is no back door either: a wrong fingerprint there is refused the same way.
    const wrong = lab.fingerprintsFile({ 'us-east-1': 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    const w = await tagssh(['console', 'serial-web'], env({ TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE: wrong }));
    assert.equal(w.code, 21, w.stderr);
    assert.match(w.stderr, /Refused the serial console endpoint/);
  });

  it('a region AWS publishes no fingerprint for is refused before any AWS call (exit 9)', async () => {
    const pushes = lab.pushes.length;
    const r = await tagssh(['console', 'far-away', '--region', 'ap-east-2'], env({}, { fingerprints: false }));
    assert.equal(r.code, 9, r.stderr);
    assert.match(r.stderr, /no published EC2 Serial Console fingerprint for ap-east-2/);
    assert.match(r.stderr, /retrieved 2026-12-02/);
    assert.equal(lab.pushes.length, pushes);
  });

  it('the fingerprints file works only beside a test endpoint, never for AWS’s own endpoints (exit 2)', async () => {
    const e = env();
    delete e.TAGSSH_SERIAL_CONSOLE_ENDPOINT;
    const r = await tagssh(['console', 'serial-web'], e);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /WARNING: TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE is set/);
    assert.match(r.stderr, /only a test endpoint \(TAGSSH_SERIAL_CONSOLE_ENDPOINT\) may be checked against other fingerprints/);
  });

  it('wrong input: an unknown Name (exit 3), no NAME, an unknown flag, a stopped instance', async () => {
    const unknown = await tagssh(['console', 'nope']);
    assert.equal(unknown.code, 3, unknown.stderr);
    assert.match(unknown.stderr, /nope/);
    const missing = await tagssh(['console']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /missing required argument 'name'/);
    const bogus = await tagssh(['console', 'serial-web', '--bogus']);
    assert.notEqual(bogus.code, 0);
    assert.match(bogus.stderr, /unknown option '--bogus'/);
    await seedInstance(moto.sdk(), { name: 'sleeping', stopped: true });
    const stopped = await tagssh(['console', 'sleeping']);
    assert.equal(stopped.code, 5, stopped.stderr);
    assert.match(stopped.stderr, /"sleeping" is stopped/);
  });
});
