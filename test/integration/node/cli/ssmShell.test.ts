import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet, seedInstance } from '../../../lab/seed.js';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import { runProcess, runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// `tagssh ssm-shell NAME` end to end: the Name resolves in moto (an instance with no public
// address), the session runs through the lab's Session Manager (StartSession and the data channel,
// reached through AWS_ENDPOINT_URL_SSM since moto serves no SSM sessions) to /bin/sh on a pty.

const root = join(import.meta.dirname, '../../../..');
let moto: Moto;
let lab: SsmLab;
let home: string;
let managedId: string;

function env(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...moto.env, ...lab.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh'), TERM: 'xterm-256color' };
}

function tagssh(args: string[], input?: string): Promise<Run> {
  return runTagssh(args, env(), input);
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-ssm-'));
  [moto, lab] = await Promise.all([startMoto(), startSsmLab()]);
  const ec2 = moto.sdk();
  const subnet = await privateSubnet(ec2);
  managedId = (await seedInstance(ec2, { name: 'private-app', subnetId: subnet })).id;
  await seedInstance(ec2, { name: 'no-agent', subnetId: subnet });
  const denied = await seedInstance(ec2, { name: 'locked-down', subnetId: subnet });
  lab.nodes.set(managedId, {});
  lab.nodes.set(denied.id, { deny: true });
});

after(async () => {
  await Promise.all([lab?.stop(), moto?.stop()]);
  rmSync(home, { recursive: true, force: true });
});

describe('tagssh ssm-shell', () => {
  it('runs a shell that reads stdin when stdin is not a terminal, and exits 0 when it ends', async () => {
    const r = await tagssh(['ssm-shell', 'private-app'], 'echo hi-$((6*7))\nexit\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /hi-42\r?$/m);
    const rec = lab.sessions.at(-1)!;
    assert.equal(rec.instanceId, managedId);
    assert.equal(rec.portNumber, undefined, 'a shell session, not port forwarding');
  });

  it("shows the agent's CustomerMessage on stderr, escaped", async () => {
    lab.nodes.set(managedId, { customerMessage: 'Please update session manager plugin.\u009b31m' });
    try {
      const r = await tagssh(['ssm-shell', 'private-app'], 'exit\n');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /Please update session manager plugin\.\\x9b31m/);
      assert.ok(!r.stderr.includes('\u009b'), 'no raw C1 control reaches the terminal');
    } finally {
      lab.nodes.set(managedId, {});
    }
  });

  it('on a terminal: the window size at start and on resize, Ctrl-C reaches the remote command', async () => {
    const steps = [
      ['wait', 'lab\\$ '],
      ['send', 'stty size\n'],
      ['wait', '30 100'],
      ['resize', 40, 120],
      ['sleep', 0.3],
      ['send', 'stty size\n'],
      ['wait', '40 120'],
      ['send', 'sleep 30; echo late-$((6*7))\n'],
      ['sleep', 0.5],
      ['send', '\x03'],
      ['send', 'echo after-$((1+1))\n'],
      ['wait', 'after-2'],
      ['send', 'exit\n'],
    ];
    const started = Date.now();
    const r = await runProcess(
      'python3',
      [join(root, 'test/lab/ptyDriver.py'), '30', '100', JSON.stringify(steps), '--', process.execPath, TAGSSH_BIN, 'ssm-shell', 'private-app'],
      { env: env() },
    );
    assert.match(r.stdout, /EXIT:0\s*$/, r.stdout);
    assert.match(r.stdout, /40 120/);
    assert.match(r.stdout, /after-2/);
    assert.doesNotMatch(r.stdout, /late-42/);
    assert.ok(Date.now() - started < 25_000);
    assert.deepEqual(lab.sessions.at(-1)!.sizes, [
      { cols: 100, rows: 30 },
      { cols: 120, rows: 40 },
    ]);
  });

  it('an instance that is not a managed node: one line naming the missing piece, exit 24', async () => {
    const r = await tagssh(['ssm-shell', 'no-agent'], '');
    assert.equal(r.code, 24, r.stderr);
    assert.match(r.stderr, /^tagssh: i-[0-9a-f]+ is not an SSM managed node: its SSM agent is not running or not registered/m);
    assert.match(r.stderr, /AmazonSSMManagedInstanceCore/);
  });

  it('an identity without ssm:StartSession: AccessDenied named, exit 8', async () => {
    const r = await tagssh(['ssm-shell', 'locked-down'], '');
    assert.equal(r.code, 8, r.stderr);
    assert.match(r.stderr, /lacks ssm:StartSession on i-[0-9a-f]+ \(AccessDenied\)/);
  });

  it('wrong input: an unknown Name (exit 3), no NAME, an unknown flag', async () => {
    const unknown = await tagssh(['ssm-shell', 'nope'], '');
    assert.equal(unknown.code, 3, unknown.stderr);
    assert.match(unknown.stderr, /nope/);
    const missing = await tagssh(['ssm-shell'], '');
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /missing required argument 'name'/);
    const bogus = await tagssh(['ssm-shell', 'private-app', '--bogus'], '');
    assert.notEqual(bogus.code, 0);
    assert.match(bogus.stderr, /unknown option '--bogus'/);
    const badPick = await tagssh(['ssm-shell', 'private-app', '--pick', 'i-0123456789abcdef0'], '');
    assert.equal(badPick.code, 3, badPick.stderr);
    assert.match(badPick.stderr, /i-0123456789abcdef0/);
    const elsewhere = await tagssh(['ssm-shell', 'private-app', '--region', 'eu-west-1'], '');
    assert.equal(elsewhere.code, 3, elsewhere.stderr);
    assert.match(elsewhere.stderr, /eu-west-1/);
    const profile = await tagssh(['ssm-shell', 'private-app', '--profile', 'no-such-profile'], '');
    assert.notEqual(profile.code, 0);
    assert.match(profile.stderr, /no-such-profile/);
  });

  it('--pick and --region choose the instance as in every other command', async () => {
    const r = await tagssh(['ssm-shell', 'private-app', '--region', 'us-east-1', '--pick', managedId], 'echo picked-$((2+3))\nexit\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /picked-5/);
  });
});
