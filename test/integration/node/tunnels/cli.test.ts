import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import type { Moto } from '../../../lab/moto.js';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { type SshdHost } from '../../../lab/sshd.js';
import { freePort } from '../../../lab/ports.js';
import { runProcess, runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';
import { startTunnelProcess, waitFor, type TunnelProcess } from '../../../lab/tunnelProcess.js';

// `tagssh tunnel` as a person runs it: a Name tag in moto, a real sshd behind its Elastic IP, an
// HTTP server behind -L, curl through -D (SOCKS5, names resolved on the far side), an echo
// behind -R; the session killed on the server side (it reconnects, same addresses); Ctrl-C.
// Every flag is run, wrong specs included: each error names its flag and exits 2.

const root = join(import.meta.dirname, '../../../..');
let lab: CliLab;
let moto: Moto;
let host: SshdHost;
let home: string;
let httpServer: http.Server;
let echoServer: net.Server;
let httpPort: number;
let echoPort: number;
const BODY = `hello through the tunnel ${randomBytes(8).toString('hex')}\n`;

function env(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh') };
}
function tagssh(args: string[]): Promise<Run> {
  return runTagssh(args, env());
}

/** Runs tagssh on a real pseudo-terminal driven step by step (test/lab/ptyDriver.py). */
function onPty(steps: unknown[], args: string[]): Promise<Run> {
  return runProcess('python3', [join(root, 'test/lab/ptyDriver.py'), '30', '100', JSON.stringify(steps), '--', process.execPath, TAGSSH_BIN, ...args], {
    env: { ...env(), TERM: 'xterm-256color' },
  });
}

function startTunnel(args: string[]): Promise<TunnelProcess> {
  return startTunnelProcess(args, env());
}

function httpGet(hostPort: string): Promise<string> {
  const [h, p] = [hostPort.slice(0, hostPort.lastIndexOf(':')), Number(hostPort.slice(hostPort.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    http
      .get({ host: h, port: p, path: '/', agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

function echoSha(port: number, data: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    const s = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => s.end(data));
    s.on('data', (c) => h.update(c));
    s.on('end', () => resolve(h.digest('hex')));
    s.on('error', reject);
  });
}

before(async () => {
  lab = await startCliLab({
    prefix: 'tagssh-cli-tunnel-',
    keyName: 'team-key',
    sshd: { address: '127.0.0.45' },
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
  httpServer = http.createServer((_req, res) => res.end(BODY));
  echoServer = net.createServer({ allowHalfOpen: true }, (s) => s.pipe(s));
  [httpPort, echoPort] = [await freePort(), await freePort()];
  await new Promise<void>((r) => httpServer.listen(httpPort, '127.0.0.1', r));
  await new Promise<void>((r) => echoServer.listen(echoPort, '127.0.0.1', r));
});

after(async () => {
  httpServer?.close();
  echoServer?.close();
  await lab?.stop();
});

describe('tagssh tunnel', () => {
  it('refuses a first-seen host key without --accept-new', async () => {
    const port = await freePort();
    const r = await tagssh(['tunnel', 'web', '-L', `${port}:127.0.0.1:${httpPort}`]);
    assert.equal(r.code, 20, r.stderr);
    assert.match(r.stderr, /is not yet trusted/);
    assert.match(r.stderr, /--accept-new/);
    assert.equal(r.stdout, '');
  });

  it('on a terminal asks before trusting a first-seen host key, as tagssh ssh does', async () => {
    const fp = host.hostKeys.find((k) => k.type === 'ed25519')!.fingerprint;
    const forward = ['tunnel', 'web', '-L', `0:127.0.0.1:${httpPort}`];
    const declined = await onPty(
      [
        ['wait', 'Type yes'],
        ['send', 'no\r'],
      ],
      forward,
    );
    assert.match(declined.stdout, new RegExp(`Trust web's ssh-ed25519 key ${fp.replace(/[+/]/g, '\\$&')}\\?`));
    assert.doesNotMatch(declined.stdout, /Tunnels through/);
    assert.match(declined.stdout, /EXIT:20\n$/);
    const accepted = await onPty(
      [
        ['wait', 'Type yes'],
        ['send', 'yes\r'],
        ['wait', 'Press Ctrl-C'],
        ['send', '\u0003'],
      ],
      forward,
    );
    assert.match(accepted.stdout, /^ {2}127\.0\.0\.1:\d+ {2}→ {2}127\.0\.0\.1:\d+ as seen from web/m);
    assert.match(accepted.stdout, /Tunnels closed \(\d+ bytes sent, \d+ bytes received\)\./);
    assert.match(accepted.stdout, /EXIT:0\n$/);
    const trusted = await tagssh(['ssh', 'web', '--', 'true']);
    assert.equal(trusted.code, 0, `the confirmed key is now trusted: ${trusted.stderr}`);
    assert.equal((await tagssh(['forget-host-key', 'web'])).code, 0);
  });

  it('opens -L, -D and -R, prints copyable addresses, reconnects after a drop, closes on Ctrl-C', async () => {
    const remotePort = await freePort();
    const t = await startTunnel([
      'web',
      '--accept-new',
      '--keepalive',
      '1',
      '-L',
      `0:127.0.0.1:${httpPort}`,
      '--dynamic',
      '0',
      '-R',
      `${remotePort}:127.0.0.1:${echoPort}`,
    ]);
    try {
      assert.match(t.lines[0]!, /^Tunnels through web:$/);
      const local = /^ {2}(127\.0\.0\.1:\d+) {2}→ {2}127\.0\.0\.1:(\d+) as seen from web {2}\(-L 0:127\.0\.0\.1:\d+\)$/.exec(t.lines[1]!);
      assert.ok(local, t.lines[1]);
      assert.equal(Number(local[2]), httpPort);
      const socks = /^ {2}(127\.0\.0\.1:\d+) {2}SOCKS5 proxy/.exec(t.lines[2]!);
      assert.ok(socks, t.lines[2]);
      assert.equal(t.lines[3], `  web 127.0.0.1:${remotePort}  →  127.0.0.1:${echoPort} on this machine  (-R ${remotePort}:127.0.0.1:${echoPort})`);

      assert.equal(await httpGet(local[1]!), BODY);
      // curl resolves nothing itself with --socks5-hostname: "localhost" is looked up by the server.
      const curl = await runProcess('curl', ['-sS', '--max-time', '20', '--socks5-hostname', socks[1]!, `http://localhost:${httpPort}/`], {
        env: { PATH: process.env.PATH },
      });
      assert.equal(curl.code, 0, curl.stderr);
      assert.equal(curl.stdout, BODY);
      const data = randomBytes(1 << 20);
      assert.equal(await echoSha(remotePort, data), createHash('sha256').update(data).digest('hex'));

      for (const pid of execFileSync('pgrep', ['-P', String(host.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n'))
        process.kill(Number(pid), 'SIGKILL');
      await waitFor(
        () =>
          /^\[\d\d:\d\d:\d\d\] Link to web rebuilt \(rebuild 1\) after \d+\.\d s, \d+ attempts?: it had dropped \(.+\); the local ports stayed open\.$/m.test(
            t.stderr(),
          ),
        () => t.stderr(),
      );
      assert.equal(await httpGet(local[1]!), BODY, 'same local address after the reconnect');
      assert.equal(await echoSha(remotePort, data), createHash('sha256').update(data).digest('hex'), '-R again');

      const exited = new Promise<number | null>((r) => t.child.once('exit', (code) => r(code)));
      t.child.kill('SIGINT');
      assert.equal(await exited, 0);
      assert.match(t.stderr(), /Tunnels closed \(\d+ bytes sent, \d+ bytes received\)\./);
      await assert.rejects(httpGet(local[1]!), /ECONNREFUSED/);
    } finally {
      t.child.kill('SIGKILL');
    }
  });

  it('binds to 0.0.0.0 only when that is written out', async () => {
    const port = await freePort('0.0.0.0');
    const t = await startTunnel(['web', '-L', `0.0.0.0:${port}:127.0.0.1:${httpPort}`]);
    try {
      assert.match(t.lines[1]!, new RegExp(`^ {2}0\\.0\\.0\\.0:${port} {2}→`));
      assert.equal(await httpGet(`127.0.0.1:${port}`), BODY);
    } finally {
      t.child.kill('SIGINT');
    }
  });

  it('a local port in use is an error naming the flag', async () => {
    const busy = net.createServer();
    const port = await freePort();
    await new Promise<void>((r) => busy.listen(port, '127.0.0.1', r));
    try {
      const r = await tagssh(['tunnel', 'web', '-D', '0', '-L', `127.0.0.1:${port}:127.0.0.1:80`]);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr.split('\n')[0], `tagssh: -L 127.0.0.1:${port}:127.0.0.1:80: Local port ${port} on 127.0.0.1 is already in use.`);
      assert.match(r.stderr, /→ Pick another local port/);
    } finally {
      busy.close();
    }
  });

  const wrong: Array<[string[], RegExp]> = [
    [[], /^tagssh: No tunnels are saved: save one in the app's Tunnels tab, or give the forwards as -L, -D or -R\.$/m],
    [['-L', '8080'], /^tagssh: -L 8080: the host to connect to is missing \(\[bind:\]port:host:hostport\)\.$/m],
    [['-L', '8080:db'], /^tagssh: -L 8080:db: the host port is missing/m],
    [['-L', '99999:db:80'], /^tagssh: -L 99999:db:80: the port must be a number from 1 to 65535 \(or 0 for any free port\)\.$/m],
    [['-L', '8080:db:http'], /^tagssh: -L 8080:db:http: the host port must be a number from 1 to 65535\.$/m],
    [['-L', ':8080:db:80'], /^tagssh: -L :8080:db:80: an empty or \* bind address would listen on every interface; write 0\.0\.0\.0/m],
    [['-D', '*:1080'], /^tagssh: -D \*:1080: an empty or \* bind address/m],
    [['-D', '1080:db:80'], /^tagssh: -D 1080:db:80: expected \[bind:\]port\.$/m],
    [['-R', '0:localhost:80'], /^tagssh: -R 0:localhost:80: the port must be a number from 1 to 65535\.$/m],
    [['-R', '9000:bad host:80'], /^tagssh: -R 9000:bad host:80: "bad host" is not a host name or address\.$/m],
    [['-L', '8080:db:80', '--keepalive', '0'], /--keepalive.*expected seconds between 0 and 3600/],
  ];
  for (const [args, re] of wrong) {
    it(`refuses ${args.join(' ') || 'no forward'} with exit 2, before any lookup`, async () => {
      const r = await tagssh(['tunnel', 'web', ...args]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, re);
      assert.equal(r.stdout, '');
    });
  }

  it('--accept-new written before NAME (where it takes NAME for a fingerprint) says where it goes', async () => {
    const r = await tagssh(['tunnel', '--accept-new', 'web', '-L', '8080:db:80']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /expected a host-key fingerprint such as SHA256:…; to trust a new host key without one, put --accept-new after NAME and the forwards/,
    );
    assert.doesNotMatch(r.stderr, /remote command/);
  });

  it('takes the connection options of tagssh ssh: --user, --identity, --port', async () => {
    const wrongUser = await tagssh(['tunnel', 'web', '--user', 'nobody', '-D', '0']);
    assert.equal(wrongUser.code, 23, wrongUser.stderr);
    assert.match(wrongUser.stderr, /nobody/);
    const noKey = await tagssh(['tunnel', 'web', '--identity', join(home, 'missing.pem'), '-D', '0']);
    assert.equal(noKey.code, 2, noKey.stderr);
    assert.match(noKey.stderr, /--identity/);
    const closed = await freePort(host.address);
    const wrongPort = await tagssh(['tunnel', 'web', '--port', String(closed), '-D', '0']);
    assert.equal(wrongPort.code, 24, wrongPort.stderr);
    assert.match(wrongPort.stderr, new RegExp(`${closed}`));
  });

  it('refuses a privileged local port when not root, naming the flag', async () => {
    const r = await runProcess(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, TAGSSH_BIN, 'tunnel', 'web', '-L', '80:db:80'],
      { env: { PATH: process.env.PATH, HOME: '/tmp', TAGSSH_HOME: '/tmp/nonexistent-tagssh' } },
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^tagssh: -L 80:db:80: local port 80 is below 1024, which only root may listen on; pick 1024 or above\.$/m);
  });
});
