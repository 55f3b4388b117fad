import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { AppError } from '../../../../src/common/errors.js';
import type { TunnelStatusPayload } from '../../../../src/common/tunnels/contract.js';
import type { SshConnection } from '../../../../src/node/ssh/connection.js';
import { TunnelManager } from '../../../../src/node/tunnels/manager.js';

// The app's tunnels: a run whose link cannot be rebuilt (the host key changed) is listed as failed,
// with why and what it had been through, and no longer as running; until then its status carries
// the link's health (connected since, rebuilds, the last problem).

class FakeLink extends EventEmitter {
  closed = false;
  drop(err: AppError) {
    this.closed = true;
    this.emit('close', err);
  }
}

test('a run whose rebuild meets a changed host key is failed, listed with its error and last problem', async () => {
  const manager = new TunnelManager();
  const links: FakeLink[] = [];
  let hostKeyChanged = false;
  const saved = {
    id: 'tunnel-abc',
    instanceId: 'i-0123456789abcdef0',
    region: 'us-east-1',
    label: 'web-1',
    kind: 'local' as const,
    port: 0,
    host: 'db',
    hostPort: 5432,
  };
  const sent: TunnelStatusPayload[] = [];
  manager.on('status', (s: TunnelStatusPayload) => sent.push(s));
  const started = await manager.start(saved, async () => {
    if (hostKeyChanged) throw new AppError('HOST_KEY_CHANGED', 'The host key of web-1 changed.');
    const link = new FakeLink();
    links.push(link);
    return { connection: link as unknown as SshConnection, release: () => {} };
  });
  assert.equal(started.state, 'open');
  assert.equal(started.reconnects, 0);
  assert.ok(started.connectedSince && Math.abs(started.connectedSince - Date.now()) < 5000);
  assert.equal(started.lastError, null);
  assert.equal(manager.isRunning(saved.id), true);

  hostKeyChanged = true;
  links[0]!.drop(new AppError('NETWORK', 'web-1 stopped answering (keepalive).'));
  const down = manager.status(saved.id);
  assert.equal(down.state, 'reconnecting');
  assert.equal(down.connectedSince, null);
  assert.equal(down.error?.message, 'web-1 stopped answering (keepalive).');
  while (manager.status(saved.id).state !== 'failed') await once(manager, 'status');
  const failed = manager.status(saved.id);
  assert.equal(failed.error?.code, 'HOST_KEY_CHANGED');
  assert.equal(failed.lastError?.error.code, 'HOST_KEY_CHANGED');
  assert.equal(manager.isRunning(saved.id), false, 'no longer running');
  assert.deepEqual(
    manager.runsOf(new Set([saved.id])).map((s) => s.state),
    ['failed'],
  );
  assert.deepEqual([...new Set(sent.map((s) => s.state))], ['connecting', 'open', 'reconnecting', 'failed'], 'each change was pushed to the windows');
  manager.stopAll();
});

test('a run that fails to start while another starts is not left in the runs workspace restore keeps', async () => {
  const manager = new TunnelManager();
  const tunnel = (id: string, label: string) => ({
    id,
    instanceId: `i-0${id.padStart(16, '0')}`,
    region: 'us-east-1',
    label,
    kind: 'local' as const,
    port: 0,
    host: 'db',
    hostPort: 5432,
  });
  const runs: string[][] = [];
  manager.on('runs', (r: Array<{ label: string }>) => runs.push(r.map((x) => x.label)));
  let refuse!: (e: Error) => void;
  // gone-1's connect hangs until app-1 is up (and its 'runs' names gone-1 as starting), then fails.
  const gone = manager.start(tunnel('2', 'gone-1'), () => new Promise((_, reject) => (refuse = reject)));
  await manager.start(tunnel('1', 'app-1'), async () => ({ connection: new FakeLink() as unknown as SshConnection, release: () => {} }));
  assert.deepEqual(runs.at(-1), ['gone-1', 'app-1']);
  refuse(new AppError('NOT_FOUND', 'No instance named gone-1.'));
  await assert.rejects(gone, /No instance named gone-1/);
  assert.deepEqual(runs.at(-1), ['app-1'], 'the last word on the runs drops the one that never started');
  manager.stopAll();
});
