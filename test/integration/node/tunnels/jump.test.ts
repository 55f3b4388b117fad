import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startJumpPair, startNetns, type Netns, type NsSshd } from '../../../lab/netns.js';
import { makeKey, type KeyPair } from '../../../lab/sshd.js';
import { connect } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { TunnelRunner } from '../../../../src/node/tunnels/runner.js';

// Tunnels through a jump host to a target this client cannot reach: target and bastion live in
// their own network namespace (test/lab/netns.ts), only the bastion's port is relayed out, and
// the bastion may forward only to the target's SSH port. The service behind -L and -D is the
// target's own sshd on its namespace loopback — its banner proves the bytes came from there.

let dir: string;
let ns: Netns;
let target: NsSshd;
let bastion: NsSshd;
let key: KeyPair;
let store: KnownHostsStore;
const TARGET_ADDR = '127.0.0.5';
const BASTION_ADDR = '127.0.0.8';

function hop(h: { address: string; port: number; user: string }, label: string): ConnectTarget {
  return { host: h.address, port: h.port, user: h.user, label, identityFile: key.privatePath, acceptNewHostKey: true };
}

async function bannerVia(port: number, prefix?: Buffer): Promise<string> {
  const s = net.connect(port, '127.0.0.1');
  await once(s, 'connect');
  if (prefix) s.write(prefix);
  let got = Buffer.alloc(0);
  const want = prefix ? 12 : 0; // SOCKS: method choice (2 bytes) and the CONNECT reply (10)
  for await (const c of s) {
    got = Buffer.concat([got, c as Buffer]);
    if (got.subarray(want).includes(0x0a)) break;
  }
  s.destroy();
  if (prefix) assert.deepEqual([...got.subarray(0, 4)], [5, 0, 5, 0], 'no-auth chosen, CONNECT succeeded');
  return got.subarray(want).toString('latin1').split('\r\n')[0]!;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-tunnel-jump-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  ns = await startNetns();
  ({ target, bastion } = await startJumpPair(ns, key, { target: TARGET_ADDR, bastion: BASTION_ADDR }));
  store = new KnownHostsStore(join(dir, 'known_hosts.json'));
});

after(async () => {
  await ns?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('tunnels through a jump host', () => {
  it('-L and -D reach a service only the target can reach', async () => {
    const direct = net.connect(target.port, TARGET_ADDR);
    await assert.rejects(once(direct, 'connect'), /ECONNREFUSED/, 'not reachable from here');
    const r = new TunnelRunner(
      [
        { kind: 'local', port: 0, host: TARGET_ADDR, hostPort: target.port },
        { kind: 'dynamic', port: 0 },
      ],
      {
        acquire: async () => {
          const connection = await connect(
            { ...hop(target, 'app'), jump: [hop(bastion, 'bastion')] },
            { knownHosts: store, consoleOutput: null, agent: null, timeoutMs: 10_000 },
          );
          return { connection, release: () => connection.close() };
        },
      },
    );
    await r.start();
    try {
      const [l, d] = r.status().forwards.map((f) => Number(f.address!.split(':')[1]));
      // The target's sshd answers on its namespace address, which only the target can reach.
      assert.match(await bannerVia(l!), /^SSH-2\.0-OpenSSH/);
      const req = Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 5]), Buffer.from([target.port >> 8, target.port & 0xff])]);
      const viaSocks = await bannerVia(d!, req);
      assert.match(viaSocks, /^SSH-2\.0-OpenSSH/);
      assert.equal(r.status().state, 'open');
    } finally {
      r.stop();
    }
  });
});
