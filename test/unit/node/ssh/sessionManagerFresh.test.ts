import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { SessionManager } from '../../../../src/node/ssh/sessionManager.js';
import type { SshConnection } from '../../../../src/node/ssh/connection.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';

// acquire({ fresh: true }): a new connection even when one is pooled (a tunnel replacing its link
// before an EC2 Instance Connect Endpoint's hour ends). The new one becomes the pooled one; the
// old one serves its holders until the last lets go, then closes.

class FakeConnection extends EventEmitter {
  closed = false;
  close() {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
  }
}

test('a fresh acquire opens a new connection, which later acquires share; the old one closes after its last holder', async () => {
  const made: FakeConnection[] = [];
  const manager = new SessionManager({
    connect: async () => {
      const c = new FakeConnection();
      made.push(c);
      return c as unknown as SshConnection;
    },
  });
  const target: ConnectTarget = { host: '127.0.0.9', port: 22, user: 'ec2-user', label: 'web' };
  const a = await manager.acquire(target);
  const b = await manager.acquire(target);
  assert.equal(a.connection, b.connection, 'pooled');
  const fresh = await manager.acquire(target, { fresh: true });
  assert.notEqual(fresh.connection, a.connection);
  assert.equal(made.length, 2);
  const later = await manager.acquire(target);
  assert.equal(later.connection, fresh.connection, 'the fresh one is the pooled one now');
  a.release();
  assert.equal(made[0]!.closed, false, 'b still holds the old one');
  b.release();
  assert.equal(made[0]!.closed, true);
  fresh.release();
  assert.equal(made[1]!.closed, false, 'still held');
  later.release();
  assert.equal(made[1]!.closed, true);
});
