import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Moto } from '../../../lab/moto.js';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { startEc2Proxy } from '../../../lab/ec2Proxy.js';
import { makeKey, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { runProcess, runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// `tagssh ssh` end to end: a Name tag in moto whose Elastic IP is a loopback alias with a real
// sshd behind it. The key comes from ~/.ssh/<KeyName>.pem (HOME is a temp dir), the user and
// port from the instance's tagssh:user / tagssh:port tags.

const root = join(import.meta.dirname, '../../../..');
let lab: CliLab;
let moto: Moto;
let host: SshdHost;
let home: string;
let locked: KeyPair;

function tagssh(args: string[], input?: string): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh') }, input);
}

function onPty(steps: unknown[], args: string[]): Promise<Run> {
  return runProcess('python3', [join(root, 'test/lab/ptyDriver.py'), '30', '100', JSON.stringify(steps), '--', process.execPath, TAGSSH_BIN, ...args], {
    env: { PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh'), TERM: 'xterm-256color' },
  });
}

before(async () => {
  lab = await startCliLab({
    prefix: 'tagssh-cli-ssh-',
    keyName: 'team-key',
    sshd: { address: '127.0.0.6' },
    moreKeys: (dir) => [(locked = makeKey(join(dir, 'gen'), 'ecdsa', { name: 'locked', passphrase: 'open sesame' }))],
  });
  ({ home, moto, host } = lab);
  const ec2 = lab.ec2;
  await seedInstance(ec2, {
    name: 'web',
    eip: host.address,
    keyName: 'team-key',
    imageId: 'ami-1e749f67',
    tags: sshdTags(host),
  });
});

after(async () => {
  await lab?.stop();
});

describe('tagssh ssh', () => {
  it('refuses a first-seen host key without --accept-new, printing its fingerprint', async () => {
    const r = await tagssh(['ssh', 'web', '--', 'true']);
    assert.equal(r.code, 20, r.stderr);
    const fp = host.hostKeys.find((k) => k.type === 'ed25519')!.fingerprint;
    assert.match(
      r.stderr,
      new RegExp(`^tagssh: First connection to web \\(i-[0-9a-f]+\\): its ssh-ed25519 host key ${fp.replace(/[+/]/g, '\\$&')} is not yet trusted`),
    );
    assert.match(r.stderr, /→ Verify the fingerprint, then connect again with --accept-new/);
    assert.equal(r.stderr.trim().split('\n').length, 2, 'one line and one hint, no stack trace');
  });

  it('with --accept-new runs the command and exits with its status', async () => {
    const r = await tagssh(['ssh', 'web', '--accept-new', '--', 'echo', 'hi;', 'echo', 'oops', '>&2;', 'exit', '3']);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, 'hi\n');
    assert.equal(r.stderr, 'oops\n');
  });

  it('trusts the key afterwards and pipes stdin to the command', async () => {
    const r = await tagssh(['ssh', 'web', '--', 'tr', 'a-z', 'A-Z'], 'piped input\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'PIPED INPUT\n');
  });

  it('makes one EC2 call to connect (DescribeInstances; no DescribeAddresses, as `tagssh resolve`)', async () => {
    const proxy = await startEc2Proxy(moto.env.AWS_ENDPOINT_URL_EC2!);
    try {
      const r = await runTagssh(['ssh', 'web', '--', 'true'], {
        PATH: process.env.PATH,
        ...moto.env,
        AWS_ENDPOINT_URL_EC2: proxy.endpoint,
        HOME: home,
        TAGSSH_HOME: join(home, 'tagssh'),
      });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(Object.fromEntries(proxy.counts), { DescribeInstances: 1 });
    } finally {
      await proxy.close();
    }
  });

  it('runs a shell that reads stdin when stdin is not a terminal', async () => {
    const r = await tagssh(['ssh', 'web'], 'echo $((6*7))\nexit 5\n');
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stdout, /^42$/m);
  });

  it('runs an interactive shell on a raw TTY and follows SIGWINCH resizes', async () => {
    const steps = [
      ['send', 'stty size; echo "T=$TERM"; echo MARK$((1+0))\r'],
      ['wait', 'MARK1'],
      ['resize', 43, 132],
      ['sleep', 0.5],
      ['send', 'stty size; echo MARK$((2+0))\r'],
      ['wait', 'MARK2'],
      ['send', 'exit 7\r'],
    ];
    const r = await onPty(steps, ['ssh', 'web']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^30 100\r?$/m);
    assert.match(r.stdout, /^T=xterm-256color\r?$/m);
    assert.match(r.stdout, /^43 132\r?$/m, 'the resize reached the remote PTY');
    assert.match(r.stdout, /EXIT:7\n$/);
  });

  it('on a TTY, says the connection closed after every byte of the last output', async () => {
    const r = await onPty(
      [
        ['wait', '[#$] ?$'],
        ['send', 'seq 1 5; echo LAST; exit\r'],
      ],
      ['ssh', 'web'],
    );
    assert.equal(r.code, 0, r.stderr);
    // eslint-disable-next-line no-control-regex -- the shell's own CSI sequences (bracketed paste) are not output under test
    const text = r.stdout.replace(/\r/g, '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    const notice = text.indexOf('Connection to web closed.');
    assert.ok(notice > 0, `no close notice in:\n${text}`);
    assert.match(text, /^1\n2\n3\n4\n5\nLAST\n/m);
    assert.ok(text.lastIndexOf('LAST') < notice, `the notice comes after the output:\n${text}`);
    assert.equal(text.slice(notice), 'Connection to web closed.\n\nEXIT:0\n');
  });

  it('reports a refused login with the methods tried', async () => {
    const r = await tagssh(['ssh', 'web', '--user', 'nobody-here', '--', 'true']);
    assert.equal(r.code, 23, r.stderr);
    assert.match(r.stderr, /did not accept the key \S*team-key\.pem as "nobody-here"; tried: .*team-key\.pem/);
  });

  it('refuses a rebuilt host until forget-host-key, then verifies again', async () => {
    await host.rotateHostKeys();
    const refused = await tagssh(['ssh', 'web', '--accept-new', '--', 'true']);
    assert.equal(refused.code, 21, refused.stderr);
    assert.match(refused.stderr, /host key of web \(i-[0-9a-f]+\) at 127\.0\.0\.6:\d+ has CHANGED: trusted SHA256:\S+, now presented SHA256:/);
    assert.match(refused.stderr, /tagssh forget-host-key web/);
    const forgot = await tagssh(['forget-host-key', 'web']);
    assert.equal(forgot.code, 0, forgot.stderr);
    assert.equal((await tagssh(['ssh', 'web', '--', 'true'])).code, 20, 'the new key is not trusted silently');
    assert.equal((await tagssh(['ssh', 'web', '--accept-new', '--', 'true'])).code, 0);
    assert.equal((await tagssh(['forget-host-key', 'nothing-by-this-name'])).code, 3);
  });

  it('asks on the terminal before trusting a first-seen key', async () => {
    assert.equal((await tagssh(['forget-host-key', 'web'])).code, 0);
    const fp = host.hostKeys.find((k) => k.type === 'ed25519')!.fingerprint;
    const declined = await onPty(
      [
        ['wait', 'Type yes'],
        ['send', 'no\r'],
      ],
      ['ssh', 'web', '--', 'true'],
    );
    assert.match(declined.stdout, new RegExp(`Trust web's ssh-ed25519 key ${fp.replace(/[+/]/g, '\\$&')}\\?`));
    assert.match(declined.stdout, /EXIT:20\n$/);
    const accepted = await onPty(
      [
        ['wait', 'Type yes'],
        ['send', 'yes\r'],
      ],
      ['ssh', 'web', '--', 'echo', 'in'],
    );
    assert.match(accepted.stdout, /^in\r?$/m);
    assert.match(accepted.stdout, /EXIT:0\n$/);
    assert.equal((await tagssh(['ssh', 'web', '--', 'true'])).code, 0, 'the confirmed key is now trusted');
  });

  it('asks for a key passphrase on the terminal, without echo, and retries a wrong one', async () => {
    const steps = [
      ['wait', 'Passphrase for'],
      ['send', 'wrong\r'],
      ['wait', 'Wrong passphrase'],
      ['send', 'open sesame\r'],
    ];
    const r = await onPty(steps, ['ssh', 'web', '--accept-new', '--identity', locked.privatePath, '--', 'echo', 'unlocked']);
    assert.match(r.stdout, new RegExp(`Passphrase for ${locked.privatePath.replace(/[/.]/g, '\\$&')}: `));
    assert.match(r.stdout, /^unlocked\r?$/m);
    assert.doesNotMatch(r.stdout, /open sesame|wrong\r/, 'the passphrase is not echoed');
    assert.match(r.stdout, /EXIT:0\n$/);
  });

  it('names an instance that does not exist', async () => {
    const r = await tagssh(['ssh', 'no-such-web', '--', 'true']);
    assert.equal(r.code, 3, r.stderr);
  });

  it("prints the server's login banner on stderr, escaped, as OpenSSH shows it", async () => {
    const config = join(host.dir, 'sshd_config');
    const plain = readFileSync(config, 'utf8');
    const banner = join(host.dir, 'banner.txt');
    writeFileSync(banner, 'AUTHORIZED USE ONLY\n\x1b]52;c;ZXZpbA==\x07\n');
    writeFileSync(config, `${plain}Banner ${banner}\n`);
    await host.stop();
    await host.start();
    try {
      const r = await tagssh(['ssh', 'web', '--', 'echo', 'out']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'out\n', 'the banner is not mixed into the output');
      assert.ok(r.stderr.includes('AUTHORIZED USE ONLY\r\n\\x1b]52;c;ZXZpbA==\\x07\r\n'), JSON.stringify(r.stderr));
      assert.ok(!r.stderr.includes('\x1b]52'), 'no clipboard-writing escape reaches the terminal');
    } finally {
      writeFileSync(config, plain);
      await host.stop();
      await host.start();
    }
  });
});
