import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { startSshAgent, type SshAgent } from '../../../lab/sshAgent.js';
import { connect, type ConnectOptions } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import type { AppError } from '../../../../src/common/errors.js';

// Auth methods, exec semantics and shells against a real OpenSSH sshd on a loopback alias.

let dir: string;
let host: SshdHost;
let agent: SshAgent;
const keys: Record<string, KeyPair> = {};
let store: KnownHostsStore;

function target(extra: Partial<ConnectTarget> = {}): ConnectTarget {
  return { host: host.address, port: host.port, user: host.user, label: 'lab', acceptNewHostKey: true, ...extra };
}
function opts(extra: Partial<ConnectOptions> = {}): ConnectOptions {
  return { knownHosts: store, consoleOutput: null, agent: null, timeoutMs: 10_000, ...extra };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-conn-'));
  keys.ed25519 = makeKey(join(dir, 'keys'), 'ed25519');
  keys.rsa = makeKey(join(dir, 'keys'), 'rsa');
  keys.ecdsa = makeKey(join(dir, 'keys'), 'ecdsa');
  keys.rsaPem = makeKey(join(dir, 'keys'), 'rsa', { format: 'pem', name: 'id_rsa_pem' });
  keys.ecdsaPem = makeKey(join(dir, 'keys'), 'ecdsa', { format: 'pem', name: 'id_ecdsa_pem' });
  keys.locked = makeKey(join(dir, 'keys'), 'ed25519', { passphrase: 'correct horse', name: 'id_locked' });
  keys.lockedPem = makeKey(join(dir, 'keys'), 'rsa', { passphrase: 'pem pass', format: 'pem', name: 'id_locked_pem' });
  keys.agentOnly = makeKey(join(dir, 'keys'), 'ed25519', { name: 'id_agent' });
  keys.stranger = makeKey(join(dir, 'keys'), 'ed25519', { name: 'id_stranger' });
  host = await startSshd({
    address: '127.0.0.2',
    authorizedKeys: Object.entries(keys)
      .filter(([k]) => k !== 'stranger')
      .map(([, k]) => k.publicKey),
  });
  agent = await startSshAgent();
  agent.add(keys.agentOnly.privatePath);
  store = new KnownHostsStore(join(dir, 'known_hosts.json'));
});

after(async () => {
  agent?.stop();
  await host?.stop();
  if (host) cleanupSshd(host);
  rmSync(dir, { recursive: true, force: true });
});

describe('key files', () => {
  for (const name of ['ed25519', 'rsa', 'ecdsa', 'rsaPem', 'ecdsaPem']) {
    it(`logs in with a ${name} key`, async () => {
      const conn = await connect(target({ identityFile: keys[name]!.privatePath }), opts());
      const r = await conn.exec('echo ok');
      assert.equal(r.stdout, 'ok\n');
      conn.close();
    });
  }

  for (const [name, pass] of [
    ['locked', 'correct horse'],
    ['lockedPem', 'pem pass'],
  ] as const) {
    it(`asks for the passphrase of an encrypted ${name === 'locked' ? 'OpenSSH' : 'PEM'} key at use time and retries a wrong one`, async () => {
      const asked: Array<[string, number]> = [];
      const conn = await connect(
        target({ identityFile: keys[name]!.privatePath }),
        opts({
          askPassphrase: async (path, attempt) => {
            asked.push([path, attempt]);
            return attempt === 1 ? 'wrong' : pass;
          },
        }),
      );
      assert.deepEqual(asked, [
        [keys[name]!.privatePath, 1],
        [keys[name]!.privatePath, 2],
      ]);
      assert.equal((await conn.exec('echo in')).stdout, 'in\n');
      conn.close();
    });
  }

  it('reports an encrypted key it cannot unlock as AUTH_FAILED naming the key', async () => {
    await assert.rejects(connect(target({ identityFile: keys.locked!.privatePath }), opts()), (e: AppError) => {
      assert.equal(e.code, 'AUTH_FAILED');
      assert.match(e.message, /id_locked \(encrypted, and no way to ask for its passphrase\)/);
      return true;
    });
  });

  it('reports a missing --identity file as INVALID_INPUT', async () => {
    await assert.rejects(connect(target({ identityFile: join(dir, 'nope') }), opts()), { code: 'INVALID_INPUT' });
  });
});

describe('ssh-agent', () => {
  it('logs in with a key held only by a real ssh-agent', async () => {
    const conn = await connect(target({ identityFile: keys.stranger!.privatePath }), opts({ agent: agent.socket }));
    assert.equal((await conn.exec('echo agent')).stdout, 'agent\n');
    conn.close();
  });

  it('lists every method tried when all fail', async () => {
    const empty = await startSshAgent();
    try {
      await assert.rejects(connect(target({ identityFile: keys.stranger!.privatePath }), opts({ agent: empty.socket })), (e: AppError) => {
        assert.equal(e.code, 'AUTH_FAILED');
        assert.match(e.message, /did not accept the ssh-agent's keys as "[^"]+"; tried: agent, .*id_stranger\./);
        assert.deepEqual((e.details as { tried: string[] }).tried, ['agent', keys.stranger!.privatePath]);
        return true;
      });
    } finally {
      empty.stop();
    }
  });
});

describe('exec', () => {
  it('propagates exit status, separates stdout/stderr and feeds stdin', async () => {
    const conn = await connect(target({ identityFile: keys.ed25519!.privatePath }), opts());
    try {
      const r = await conn.exec('echo out; echo err >&2; exit 7');
      assert.deepEqual(r, { code: 7, signal: null, stdout: 'out\n', stderr: 'err\n' });
      assert.equal((await conn.exec('tr a-z A-Z', { stdin: 'shout' })).stdout, 'SHOUT');
      const killed = await conn.exec('kill -9 $$');
      assert.equal(killed.signal, 'SIGKILL');
      // Several channels at once over the one connection.
      const many = await Promise.all([1, 2, 3, 4].map((n) => conn.exec(`echo ${n}`)));
      assert.deepEqual(
        many.map((m) => m.stdout),
        ['1\n', '2\n', '3\n', '4\n'],
      );
      const chunks: Buffer[] = [];
      const streamed = await conn.exec('head -c 300000 /dev/zero', { onStdout: (c) => chunks.push(c) });
      assert.equal(streamed.stdout, '');
      assert.equal(Buffer.concat(chunks).length, 300000);
    } finally {
      conn.close();
    }
  });

  it('cancels a running command through its AbortSignal', async () => {
    const conn = await connect(target({ identityFile: keys.ed25519!.privatePath }), opts());
    try {
      const ac = new AbortController();
      const p = conn.exec('sleep 30', { signal: ac.signal });
      setTimeout(() => ac.abort(), 200);
      await assert.rejects(p, { code: 'CANCELLED' });
      // The connection stays usable for other channels.
      assert.equal((await conn.exec('echo still')).stdout, 'still\n');
    } finally {
      conn.close();
    }
  });
});

describe('shell', () => {
  it('opens an xterm-256color PTY and follows window resizes (stty size)', async () => {
    const conn = await connect(target({ identityFile: keys.ed25519!.privatePath }), opts());
    try {
      const sh = await conn.shell({ cols: 100, rows: 30 });
      let out = '';
      sh.on('data', (c: Buffer) => (out += c.toString()));
      const waitFor = async (re: RegExp) => {
        for (let i = 0; i < 200 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 25));
        assert.match(out, re);
      };
      sh.write('echo "T=$TERM"; stty size\n');
      await waitFor(/T=xterm-256color/);
      await waitFor(/\b30 100\b/);
      sh.resize(132, 43);
      sh.write('stty size\n');
      await waitFor(/\b43 132\b/);
      const exit = new Promise((r) => sh.once('exit', (code) => r(code)));
      sh.write('exit 3\n');
      assert.equal(await exit, 3);
    } finally {
      conn.close();
    }
  });
});

describe('network errors', () => {
  it('gives up on a peer that accepts TCP but never speaks SSH (TIMEOUT)', async () => {
    const silent = net.createServer(() => {}).listen(0, '127.0.0.2');
    await once(silent, 'listening');
    try {
      const port = (silent.address() as net.AddressInfo).port;
      await assert.rejects(connect(target({ port, identityFile: keys.ed25519!.privatePath }), opts({ timeoutMs: 500 })), (e: AppError) => {
        assert.equal(e.code, 'TIMEOUT');
        assert.match(e.message, /did not complete the SSH handshake within 500 ms/);
        return true;
      });
    } finally {
      silent.close();
    }
  });

  it('names a refused port as CONNECT_FAILED', async () => {
    await assert.rejects(connect(target({ port: 1, identityFile: keys.ed25519!.privatePath }), opts()), (e: AppError) => {
      assert.equal(e.code, 'CONNECT_FAILED');
      assert.match(e.message, /refused by .*:1/);
      return true;
    });
  });
});
