import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet, seedInstance, sshdTags } from '../../../lab/seed.js';
import { cleanupSshd, makeKey, startSshd, type KeyPair, type SshdHost } from '../../../lab/sshd.js';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import { shortCredentials, type ShortCredentials } from '../../../lab/credentialProcess.js';
import { startTunnelProcess, waitFor, type TunnelProcess } from '../../../lab/tunnelProcess.js';

// `tagssh tunnel NAME -L …` over Session Manager, as shipped (bin/tagssh.mjs), through TagSSH's own
// SSM client against the lab's Systems Manager (test/lab/ssmServer.ts) and a real sshd, across
// what ends a Session Manager link in real accounts: the service recycling the session's
// WebSocket (close 1000 "Bye", about hourly), and credentials that expired meanwhile (the rebuild
// must start its session with fresh ones: the lab refuses StartSession signed with an expired key).
// Throughout, a client dials the local port every 100 ms: none may be refused or turned away.
// The transfer comes from a server that serves any offset of one fixed pseudo-random stream
// (AES-CTR), so a download cut by the rebuild resumes where it was cut, as a download manager
// does; its SHA-256 is checked against the stream computed here.

const SSHD_ADDR = '127.0.0.86';
const KEY = Buffer.alloc(16, 5);
const TOTAL = 8 << 20;
const LIFETIME_S = 20;
let dir: string;
let moto: Moto;
let ssm: SsmLab;
let sshd: SshdHost;
let key: KeyPair;
let creds: ShortCredentials;
let range: net.Server;
let rangePort: number;

/** The stream's bytes [offset, end) (AES-128-CTR of zeros: seekable by 16-byte block). */
function streamBytes(offset: number, end: number): Buffer {
  const block = Math.floor(offset / 16);
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(block, 12);
  const out = createCipheriv('aes-128-ctr', KEY, iv).update(Buffer.alloc(end - block * 16));
  return out.subarray(offset - block * 16);
}

/** Serves the stream from the 8-byte offset each client sends first, to TOTAL. */
function rangeServer(): Promise<net.Server> {
  const server = net.createServer((sock) => {
    sock.on('error', () => {});
    sock.once('readable', function read() {
      const head = sock.read(8) as Buffer | null;
      if (!head) return void sock.once('readable', read);
      const offset = Number(head.readBigUInt64BE());
      // 256 KiB pieces, each written when the last drained: the transfer takes seconds, not one burst.
      const next = (at: number): void => {
        if (at >= TOTAL || sock.destroyed) return void sock.end();
        const end = Math.min(TOTAL, at + (256 << 10));
        if (sock.write(streamBytes(at, end))) setImmediate(() => next(end));
        else sock.once('drain', () => next(end));
      };
      next(offset);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const offsetHead = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};

/**
 * Downloads the stream through the tunnel, resuming after a connection that was reset (the
 * runner resets what was open on a dropped link); a connection that ended cleanly short of the
 * end is a truncation and fails. Calls `progress` with the bytes so far.
 */
async function download(port: number, progress: (n: number) => void): Promise<{ sha: string; connections: number }> {
  const h = createHash('sha256');
  let got = 0;
  let connections = 0;
  while (got < TOTAL) {
    connections++;
    if (connections > 10) throw new Error(`gave up after ${connections - 1} connections at ${got} bytes`);
    const ended = await new Promise<'end' | 'cut'>((resolve) => {
      const s = net.connect({ port, host: '127.0.0.1' }, () => s.write(offsetHead(got)));
      s.on('data', (c: Buffer) => {
        h.update(c);
        got += c.length;
        progress(got);
      });
      s.on('end', () => resolve('end'));
      s.on('error', () => resolve('cut'));
      s.on('close', () => resolve('cut'));
    });
    if (ended === 'end' && got < TOTAL) throw new Error(`a connection ended cleanly at ${got} of ${TOTAL} bytes: truncated, not reset`);
  }
  return { sha: h.digest('hex'), connections };
}

/**
 * Dials the local port every 100 ms for the stream's last 16 bytes, until stopped; returns every
 * dial that went wrong. A dial open when the link was cut (started before `cutAt`) may be reset:
 * the runner resets what was open on a dropped link. Any other failure counts, refused or not.
 */
function keepDialing(port: number): { stop(cutAt?: number): Promise<{ made: number; wrong: string[] }> } {
  const want = streamBytes(TOTAL - 16, TOTAL);
  const dials: Array<{ at: number; got: string }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      const got = await new Promise<string>((resolve) => {
        const chunks: Buffer[] = [];
        const s = net.connect({ port, host: '127.0.0.1' }, () => s.write(offsetHead(TOTAL - 16)));
        s.on('data', (c: Buffer) => chunks.push(c));
        s.on('end', () => resolve(Buffer.concat(chunks).equals(want) ? 'ok' : `wrong bytes (${Buffer.concat(chunks).length})`));
        s.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code ?? e.message}`));
      });
      dials.push({ at, got });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async (cutAt = 0) => {
      running = false;
      await loop;
      const wrong = dials.filter((d) => d.got !== 'ok' && !(d.got === 'error ECONNRESET' && d.at < cutAt && cutAt - d.at < 2000));
      return { made: dials.length, wrong: wrong.map((d) => `${new Date(d.at).toISOString()} ${d.got}`) };
    },
  };
}

const REBUILT =
  /^\[\d\d:\d\d:\d\d\] Link to vault rebuilt \(rebuild (\d+)\) after \d+\.\d s, \d+ attempts?: it had dropped \((.+)\); the local ports stayed open\.$/;
const rebuilds = (t: TunnelProcess) =>
  t
    .stderr()
    .split('\n')
    .filter((l) => REBUILT.test(l));

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...moto.env, ...ssm.env, HOME: dir, TAGSSH_HOME: join(dir, 'tagssh'), ...extra };
}

function startTunnel(e: NodeJS.ProcessEnv): Promise<TunnelProcess> {
  return startTunnelProcess(['vault', '--transport', 'ssm', '-i', key.privatePath, '--accept-new', '--keepalive', '2', '-L', `0:127.0.0.1:${rangePort}`], e);
}

const localPort = (t: TunnelProcess) => Number(/127\.0\.0\.1:(\d+)/.exec(t.lines[1]!)![1]);

async function stopTunnel(t: TunnelProcess): Promise<void> {
  if (t.child.exitCode !== null) return;
  const exited = new Promise((r) => t.child.once('exit', r));
  t.child.kill('SIGINT');
  await exited;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-ssm-rebuild-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  [sshd, moto, ssm, range] = await Promise.all([startSshd({ address: SSHD_ADDR, authorizedKeys: [key.publicKey] }), startMoto(), startSsmLab(), rangeServer()]);
  rangePort = (range.address() as net.AddressInfo).port;
  const ec2 = moto.sdk();
  const subnetId = await privateSubnet(ec2);
  const id = (await seedInstance(ec2, { name: 'vault', subnetId, imageId: 'ami-1e749f67', tags: sshdTags(sshd) })).id;
  ssm.nodes.set(id, { sshHost: SSHD_ADDR });
  creds = shortCredentials(dir, LIFETIME_S);
  mkdirSync(join(dir, '.aws'), { recursive: true });
  writeFileSync(join(dir, '.aws', 'config'), ['[profile short]', 'region = us-east-1', `credential_process = ${creds.command}`, ''].join('\n'));
});

after(async () => {
  range?.close();
  await Promise.all([ssm?.stop(), sshd?.stop(), moto?.stop()]);
  if (sshd) cleanupSshd(sshd);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('tagssh tunnel over Session Manager rebuilds its link', () => {
  it('when the service recycles the WebSocket mid-transfer: the port stays bound, no client refused, the bytes intact, one line', async () => {
    const t = await startTunnel(env());
    try {
      const port = localPort(t);
      const sessions = ssm.sessions.length;
      const dialer = keepDialing(port);
      let recycled: string | undefined;
      let cutAt = 0;
      const transfer = download(port, (n) => {
        if (n < TOTAL / 4 || recycled) return;
        cutAt = Date.now();
        recycled = ssm.recycle()?.sessionId ?? 'none open';
      });
      const { sha, connections } = await transfer;
      await waitFor(
        () => rebuilds(t).length === 1,
        () => t.stderr(),
      );
      const dialed = await dialer.stop(cutAt);
      assert.equal(sha, createHash('sha256').update(streamBytes(0, TOTAL)).digest('hex'), 'the bytes arrived intact');
      assert.ok(connections >= 2, 'the recycle cut the transfer, which resumed on the rebuilt link');
      assert.deepEqual(dialed.wrong, [], `every dial answered (${dialed.made} made)`);
      const first = ssm.sessions[sessions - 1]!;
      assert.equal(first.sessionId, recycled, "the tunnel's session was the one recycled");
      assert.ok(first.terminated, 'the recycled session was ended (TerminateSession)');
      assert.equal(ssm.sessions.length, sessions + 1, 'one new session for the rebuild');
      assert.equal(t.stderr().trim().split('\n').length, 1, `one line for one rebuild: ${t.stderr()}`);
      assert.match(REBUILT.exec(rebuilds(t)[0]!)![2]!, /stream without ending the session \(WebSocket code 1000: Bye\)/, 'the line says why the link went');
    } finally {
      await stopTunnel(t);
    }
  });

  it('after its credentials expired: the rebuild signs StartSession with fresh ones; when none can be had, it says so and comes back once they can', async () => {
    ssm.credentialCheck = (k) => creds.valid(k);
    const e = env({ AWS_PROFILE: 'short' });
    delete e.AWS_ACCESS_KEY_ID;
    delete e.AWS_SECRET_ACCESS_KEY;
    const t = await startTunnel(e);
    try {
      const port = localPort(t);
      const firstKey = ssm.sessions.at(-1)!.accessKeyId;
      assert.ok(creds.valid(firstKey), `the first session was signed with an issued key (${firstKey})`);
      // Past the first key's expiry, the service recycles the stream: the rebuild needs new credentials.
      const expires = creds.issued().find((i) => i.key === firstKey)!.expires;
      await new Promise((r) => setTimeout(r, expires - Date.now() + 500));
      assert.ok(!creds.valid(firstKey));
      const dialer = keepDialing(port);
      await new Promise((r) => setTimeout(r, 300));
      const cutAt = Date.now();
      ssm.recycle();
      await waitFor(
        () => rebuilds(t).length === 1,
        () => t.stderr(),
        30_000,
      );
      const dialed = await dialer.stop(cutAt);
      assert.deepEqual(dialed.wrong, [], `every dial answered (${dialed.made} made)`);
      const second = ssm.sessions.at(-1)!;
      assert.notEqual(second.accessKeyId, firstKey, 'the rebuild was signed with a new key');
      assert.ok(creds.valid(second.accessKeyId));

      // The login behind the credentials lapses: after the next expiry no rebuild can start a session.
      creds.failing(true);
      const secondExpires = creds.issued().find((i) => i.key === second.accessKeyId)!.expires;
      await new Promise((r) => setTimeout(r, secondExpires - Date.now() + 500));
      const before = ssm.sessions.length;
      // This time the stream's TCP connection is cut with no close frame.
      ssm.recycle(undefined, 'cut');
      await waitFor(
        () => /Rebuilding the link to vault failed/.test(t.stderr()),
        () => t.stderr(),
        20_000,
      );
      const said = t
        .stderr()
        .split('\n')
        .find((l) => /Rebuilding the link to vault failed/.test(l))!;
      assert.match(said, /credential/i, said);
      assert.equal(ssm.sessions.length, before, 'no session was started without credentials');
      // Signed in again: the next attempt rebuilds the link.
      creds.failing(false);
      await waitFor(
        () => rebuilds(t).length === 2,
        () => t.stderr(),
        60_000,
      );
      assert.ok(creds.valid(ssm.sessions.at(-1)!.accessKeyId));
      const dialer2 = keepDialing(port);
      await new Promise((r) => setTimeout(r, 500));
      const after2 = await dialer2.stop();
      assert.deepEqual(after2.wrong, [], `the port serves again (${after2.made} dials)`);
    } finally {
      ssm.credentialCheck = undefined;
      await stopTunnel(t);
    }
  });
});
