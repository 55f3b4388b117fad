import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { join } from 'node:path';
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { cleanupSshd, startSshd, type SshdHost } from '../../../lab/sshd.js';
import { freePort } from '../../../lab/ports.js';
import { startTunnelProcess, waitFor, type TunnelProcess } from '../../../lab/tunnelProcess.js';

// `tagssh tunnel` across link drops, as a person runs it: the sshd behind the instance's Elastic
// IP restarts (its sessions killed, nothing listening for 2 s) while a client connects to the
// local port; the CLI prints exactly one line per rebuild and the client is served, never refused.
// Meanwhile the Name is moved onto another instance (moto CreateTags): the rebuilt link must go
// to the instance the Name pointed at when the tunnel started (pinned by id), not to the new
// holder of the Name. Then the host key changes under it: the tunnel stops, exit 21, port closed.

let lab: CliLab;
let other: SshdHost;
let echoServer: net.Server;
let echoPort: number;
let firstId: string;
let otherId: string;

function env(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...lab.moto.env, HOME: lab.home, TAGSSH_HOME: join(lab.home, 'tagssh') };
}

function children(host: SshdHost): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(host.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there is none
  }
}

/** Connects to the local port, sends `data`, half-closes; resolves with the SHA-256 of the echo, or how it failed. */
function echoSha(port: number, data: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const h = createHash('sha256');
    const s = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => s.end(data));
    s.on('data', (c) => h.update(c));
    s.on('end', () => resolve(h.digest('hex')));
    s.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const REBUILT =
  /^\[\d\d:\d\d:\d\d\] Link to db-main rebuilt \(rebuild (\d+)\) after \d+\.\d s, \d+ attempts?: it had dropped \((.+)\); the local ports stayed open\.$/;

before(async () => {
  lab = await startCliLab({ prefix: 'tagssh-cli-rebuild-', keyName: 'team-key', sshd: { address: '127.0.0.46' } });
  other = await startSshd({ address: '127.0.0.47', authorizedKeys: [lab.key.publicKey] });
  firstId = (await seedInstance(lab.ec2, { name: 'db-main', eip: lab.host.address, keyName: 'team-key', imageId: 'ami-1e749f67', tags: sshdTags(lab.host) }))
    .id;
  otherId = (await seedInstance(lab.ec2, { name: 'db-standby', eip: other.address, keyName: 'team-key', imageId: 'ami-1e749f67', tags: sshdTags(other) })).id;
  echoServer = net.createServer({ allowHalfOpen: true }, (s) => s.pipe(s));
  echoPort = await freePort();
  await new Promise<void>((r) => echoServer.listen(echoPort, '127.0.0.1', r));
});

after(async () => {
  echoServer?.close();
  await other?.stop();
  if (other) cleanupSshd(other);
  await lab?.stop();
});

describe('tagssh tunnel rebuilds its link', () => {
  let t: TunnelProcess;
  let port: number;

  it('keeps the local port through an sshd restart: a client arriving meanwhile waits and is served; one line per rebuild', async () => {
    t = await startTunnelProcess(['db-main', '--accept-new', '--keepalive', '1', '-L', `0:127.0.0.1:${echoPort}`], env());
    port = Number(/127\.0\.0\.1:(\d+)/.exec(t.lines[1]!)![1]);
    const data = randomBytes(1 << 20);
    assert.equal(await echoSha(port, data), sha(data));

    // sshd restarts: the listener goes, its sessions are killed, and it is back 2 s later.
    const sessions = children(lab.host);
    assert.equal(sessions.length, 1, 'one sshd child carries the tunnel');
    await lab.host.stop();
    for (const pid of sessions) process.kill(pid, 'SIGKILL');
    const during = echoSha(port, data);
    await new Promise((r) => setTimeout(r, 2000));
    await lab.host.start();
    assert.equal(await during, sha(data), 'the client that came during the restart was served, not refused');
    await waitFor(
      () =>
        t
          .stderr()
          .split('\n')
          .some((l) => REBUILT.test(l)),
      () => t.stderr(),
    );
    const lines = t.stderr().trim().split('\n');
    assert.equal(lines.length, 1, `one line for one rebuild: ${t.stderr()}`);
    assert.equal(REBUILT.exec(lines[0]!)![1], '1');
  });

  it('a Name moved to another instance meanwhile does not move the tunnel: the rebuild goes to the first instance, by id', async () => {
    // The Name now points at the other instance, and the first one is renamed.
    await lab.ec2.send(new CreateTagsCommand({ Resources: [otherId], Tags: [{ Key: 'Name', Value: 'db-main' }] }));
    await lab.ec2.send(new CreateTagsCommand({ Resources: [firstId], Tags: [{ Key: 'Name', Value: 'db-old' }] }));
    for (const pid of children(lab.host)) process.kill(pid, 'SIGKILL');
    await waitFor(
      () =>
        t
          .stderr()
          .split('\n')
          .filter((l) => REBUILT.test(l)).length === 2,
      () => t.stderr(),
    );
    const data = randomBytes(100_000);
    assert.equal(await echoSha(port, data), sha(data));
    assert.equal(children(other).length, 0, 'nothing connected to the instance that took the Name');
    assert.equal(children(lab.host).length, 1, 'the tunnel is back on the instance it started on');
    assert.equal(t.stderr().trim().split('\n').length, 2, t.stderr());
  });

  it('a changed host key on a rebuild stops the tunnel: exit 21, the key named, the local port closed', async () => {
    const exited = new Promise<number | null>((r) => t.child.once('exit', (code) => r(code)));
    for (const pid of children(lab.host)) process.kill(pid, 'SIGKILL');
    await lab.host.rotateHostKeys();
    assert.equal(await exited, 21, t.stderr());
    assert.match(t.stderr(), /host key/i);
    assert.equal(await echoSha(port, Buffer.from('x')), 'error ECONNREFUSED');
  });
});
