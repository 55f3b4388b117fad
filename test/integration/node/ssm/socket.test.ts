import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { Client } from 'ssh2';
import { startSshd, makeKey, cleanupSshd, loginOver, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import { freePort } from '../../../lab/ports.js';
import { isManagedNode, openSsmSocket } from '../../../../src/node/ssm/socket.js';
import { resetSsmClients } from '../../../../src/node/ssm/api.js';
import { resetClients } from '../../../../src/node/aws/config/clients.js';
import type { AppError } from '../../../../src/common/errors.js';

// SSH over a Session Manager port session (AWS-StartSSHSession) against a real sshd behind the
// lab's data-channel server (test/lab/ssmServer.ts). moto 5.2 implements no SSM session calls, so
// the lab also serves StartSession/TerminateSession/DescribeInstanceInformation, reached through
// AWS_ENDPOINT_URL_SSM. The same bytes go through the SSM path and a plain TCP path.

const ID = 'i-0ssm00000000000a1';
const REGION = 'us-east-1';
let dir: string;
let host: SshdHost;
let key: KeyPair;
let lab: SsmLab;
const saved = { ...process.env };

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-ssm-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  host = await startSshd({ address: '127.0.0.2', authorizedKeys: [key.publicKey] });
  lab = await startSsmLab();
  lab.nodes.set(ID, { sshHost: host.address });
  Object.assign(process.env, lab.env, {
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_REGION: REGION,
    AWS_CONFIG_FILE: join(dir, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  });
  resetClients();
  resetSsmClients();
});

after(async () => {
  resetSsmClients();
  process.env = saved;
  await lab?.stop();
  await host?.stop();
  if (host) cleanupSshd(host);
  rmSync(dir, { recursive: true, force: true });
});

const login = (sock: Duplex) => loginOver(sock, host, key);

/** Sends `data` through `cat` on the server and returns the SHA-256 of what came back. */
function echoDigest(c: Client, data: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    c.exec('cat', (err, ch) => {
      if (err) return reject(err);
      const h = createHash('sha256');
      ch.on('data', (d: Buffer) => h.update(d));
      ch.on('close', () => resolve(h.digest('hex')));
      ch.stderr.resume();
      ch.end(data);
    });
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('SSH over an SSM port session', () => {
  it('isManagedNode: online node yes; unknown or connection-lost no', async () => {
    assert.equal(await isManagedNode({ instanceId: ID, region: REGION }), true);
    assert.equal(await isManagedNode({ instanceId: 'i-0unknown000000000', region: REGION }), false);
    lab.nodes.set('i-0lost0000000000001', { online: false });
    assert.equal(await isManagedNode({ instanceId: 'i-0lost0000000000001', region: REGION }), false);
  });

  it('carries the same bytes as a plain TCP path (1 MiB each way through cat), then ends the session', async () => {
    const data = randomBytes(1 << 20);
    const tcp = await login(net.connect({ host: host.address, port: host.port }));
    const direct = await echoDigest(tcp, data);
    tcp.end();
    const before = lab.sessions.length;
    const sock = await openSsmSocket({ instanceId: ID, region: REGION, port: host.port });
    const ssm = await login(sock);
    const viaSsm = await echoDigest(ssm, data);
    assert.equal(direct, sha(data));
    assert.equal(viaSsm, direct);
    ssm.end();
    await new Promise((r) => sock.once('close', r));
    const rec = lab.sessions[before]!;
    assert.equal(rec.document, 'AWS-StartSSHSession');
    assert.equal(rec.portNumber, String(host.port));
    assert.deepEqual((rec.handshakeResponse as { ProcessedClientActions: unknown[] }).ProcessedClientActions, [
      { ActionType: 'SessionType', ActionStatus: 1, ActionResult: null, Error: '' },
    ]);
    assert.equal(lab.stats.badDigests, 0);
    assert.equal(rec.beforeHandshake, 0, 'nothing sent before HandshakeComplete (the agent would drop it)');
    // TerminateSession flag on the channel, then TerminateSession on the API.
    for (let i = 0; i < 50 && !rec.terminated; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(rec.terminated, true);
  });

  it('survives dropped and duplicated frames both ways (retransmission, in-order delivery)', async () => {
    const data = randomBytes(256 * 1024);
    lab.loss = { drop: 0.05, duplicate: 0.05 };
    try {
      const sock = await openSsmSocket({ instanceId: ID, region: REGION, port: host.port });
      const c = await login(sock);
      assert.equal(await echoDigest(c, data), sha(data));
      c.end();
      await new Promise((r) => sock.once('close', r));
    } finally {
      lab.loss = undefined;
    }
    assert.ok(lab.stats.dropped > 10, `dropped ${lab.stats.dropped}`);
    assert.ok(lab.stats.duplicated > 10, `duplicated ${lab.stats.duplicated}`);
    assert.ok(lab.stats.agentRetransmissions > 0, 'the lab resent what the client never acknowledged');
  });

  it('a server that sends and closes: every byte arrives, then the stream ends cleanly (channel_closed)', { timeout: 20_000 }, async () => {
    const data = randomBytes(200_000);
    const server = net.createServer((s) => s.end(data));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    lab.nodes.set('i-0sender00000000001', { sshHost: '127.0.0.1' });
    try {
      const sock = await openSsmSocket({ instanceId: 'i-0sender00000000001', region: REGION, port: (server.address() as net.AddressInfo).port });
      const chunks: Buffer[] = [];
      sock.on('data', (d: Buffer) => chunks.push(d));
      await new Promise((r) => sock.once('end', r));
      assert.equal(sha(Buffer.concat(chunks)), sha(data));
      await new Promise((r) => sock.once('close', r));
    } finally {
      server.close();
    }
  });

  it('a closed SSH port on the instance: the agent ends the session (channel_closed, no flag), worded as sshd unreachable with what to check', async () => {
    const closedPort = await freePort('127.0.0.2');
    const sock = await openSsmSocket({ instanceId: ID, region: REGION, port: closedPort });
    const err = await new Promise<AppError>((resolve) => sock.once('error', (e) => resolve(e as AppError)));
    assert.equal(err.code, 'CONNECT_FAILED');
    assert.match(err.message, new RegExp(`the agent could not reach sshd on the instance \\(port ${closedPort}\\)`));
    assert.match(err.message, /The agent said: Unable to connect to specified port/);
    assert.match(err.hint ?? '', /sshd is running and listens on port/);
    assert.deepEqual(
      lab.sessions.at(-1)!.flags.filter((f) => f === 3),
      [],
      'no ConnectToPortError flag',
    );
  });
});

describe('the service and the agent as they behave', () => {
  const PAUSED = 'i-0paused0000000001';

  /** Logs in over a fresh SSM socket, waits until the away window has begun, then pushes bytes through cat. */
  async function echoAcrossAway(away: { afterMs: number; awayMs: number; start: boolean }): Promise<{ ms: number; rec: (typeof lab.sessions)[number] }> {
    lab.nodes.set(PAUSED, { sshHost: host.address, away });
    const sock = await openSsmSocket({ instanceId: PAUSED, region: REGION, port: host.port });
    const rec = lab.sessions.at(-1)!;
    let failure: Error | undefined;
    sock.on('error', (e) => (failure = e));
    const c = await login(sock);
    const idleUntil = Date.now() + away.afterMs + 100;
    while (Date.now() < idleUntil) await new Promise((r) => setTimeout(r, 20));
    const data = randomBytes(64 * 1024);
    const t0 = Date.now();
    assert.equal(await echoDigest(c, data), sha(data));
    const ms = Date.now() - t0;
    c.end();
    await new Promise((r) => sock.once('close', r));
    assert.equal(failure, undefined, 'no error on the stream');
    for (let i = 0; i < 100 && rec.closedOutput === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    return { ms, rec };
  }

  it('pause_publication then start_publication while the agent is away: every byte arrives, the session ends cleanly', async () => {
    const { rec } = await echoAcrossAway({ afterMs: 300, awayMs: 600, start: true });
    assert.equal(rec.closedOutput, '');
  });

  it('pause_publication and no start_publication (the agent idle when it is back): input is held at most 2 s, then sent', { timeout: 30_000 }, async () => {
    const { ms, rec } = await echoAcrossAway({ afterMs: 300, awayMs: 300, start: false });
    assert.ok(ms < 10_000, `${ms} ms`);
    assert.equal(rec.closedOutput, '');
  });

  it("HandshakeComplete's CustomerMessage reaches the caller as the stream's notice", async () => {
    lab.nodes.set('i-0notice00000000001', { sshHost: host.address, customerMessage: 'This session is encrypted using AWS KMS.\u001b]0;x\u0007' });
    const sock = (await openSsmSocket({ instanceId: 'i-0notice00000000001', region: REGION, port: host.port })) as Duplex & { notice?: string };
    assert.equal(sock.notice, 'This session is encrypted using AWS KMS.\u001b]0;x\u0007', 'kept as sent: escaped where it is shown');
    sock.destroy();
  });

  it('a document that asks for KMS: the error says so at once, from the handshake; the agent saw status 3 and the session is terminated', async () => {
    lab.nodes.set('i-0kms0000000000001', { sshHost: host.address, kms: true });
    await assert.rejects(
      openSsmSocket({ instanceId: 'i-0kms0000000000001', region: REGION, port: host.port }),
      (e: AppError) => e.code === 'CONNECT_FAILED' && /asks for KMS encryption, which TagSSH does not support/.test(e.message),
    );
    const rec = lab.sessions.at(-1)!;
    const answer = rec.handshakeResponse as { ProcessedClientActions: Array<{ ActionType: string; ActionStatus: number }> };
    assert.deepEqual(
      answer.ProcessedClientActions.map((a) => [a.ActionType, a.ActionStatus]),
      [
        ['SessionType', 1],
        ['KMSEncryption', 3],
      ],
    );
    for (let i = 0; i < 50 && !rec.terminated; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(rec.terminated, true);
  });
});

describe('SSM errors name the missing piece', () => {
  it('not a managed node', async () => {
    await assert.rejects(
      openSsmSocket({ instanceId: 'i-0unknown000000000', region: REGION, port: 22 }),
      (e: AppError) => e.code === 'CONNECT_FAILED' && /i-0unknown000000000 is not an SSM managed node/.test(e.message),
    );
  });

  it('the identity lacks ssm:StartSession (AccessDenied)', async () => {
    lab.nodes.set('i-0denied00000000001', { sshHost: host.address, deny: true });
    await assert.rejects(
      openSsmSocket({ instanceId: 'i-0denied00000000001', region: REGION, port: 22 }),
      (e: AppError) => e.code === 'ACCESS_DENIED' && /lacks ssm:StartSession on i-0denied00000000001/.test(e.message),
    );
  });

  it('the stream URL is unreachable', async () => {
    lab.streamUrlOverride = `ws://127.0.0.1:${await freePort()}/v1/data-channel/x`;
    try {
      await assert.rejects(
        openSsmSocket({ instanceId: ID, region: REGION, port: host.port }),
        (e: AppError) => e.code === 'NETWORK' && /Could not reach the Session Manager stream at 127\.0\.0\.1/.test(e.message),
      );
    } finally {
      lab.streamUrlOverride = undefined;
    }
    assert.equal(lab.sessions.at(-1)!.terminated, true, 'the started session is terminated');
  });

  it('a plain ws:// stream URL off this machine is refused before the token is sent', async () => {
    lab.streamUrlOverride = 'ws://ssmmessages.example.com/v1/data-channel/x';
    try {
      await assert.rejects(
        openSsmSocket({ instanceId: ID, region: REGION, port: host.port }),
        (e: AppError) => e.code === 'AWS_API' && /not wss:\/\//.test(e.message),
      );
    } finally {
      lab.streamUrlOverride = undefined;
    }
  });

  it('Systems Manager unreachable', async () => {
    process.env.AWS_ENDPOINT_URL_SSM = `http://127.0.0.1:${await freePort()}`;
    resetSsmClients();
    try {
      await assert.rejects(
        isManagedNode({ instanceId: ID, region: REGION }),
        (e: AppError) => e.code === 'NETWORK' && /Could not reach Systems Manager in us-east-1/.test(e.message),
      );
    } finally {
      process.env.AWS_ENDPOINT_URL_SSM = lab.endpoint;
      resetSsmClients();
    }
  });
});
