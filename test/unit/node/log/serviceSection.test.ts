import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createAppService } from '../../../../src/node/service.js';
import { sessionLogSection } from '../../../../src/node/log/serviceSection.js';
import { defaultSettings, type Settings } from '../../../../src/common/model/settings.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { stubEngine } from '../../../support/engineStub.js';
import { instanceOf } from '../../../support/instance.js';

// The app's "Log to file": the engine logs a session's output stream (never what was typed),
// with a header from the inventory, under <config>/logs; the log ends with the session.

let home: string;
const saved = process.env.TAGSSH_HOME;
before(() => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-logsec-'));
  process.env.TAGSSH_HOME = home;
});
after(() => {
  if (saved === undefined) delete process.env.TAGSSH_HOME;
  else process.env.TAGSSH_HOME = saved;
  rmSync(home, { recursive: true, force: true });
});

class FakeSessions extends EventEmitter {
  writes: string[] = [];
  write(_id: string, data: string | Buffer) {
    this.writes.push(String(data));
  }
  resize() {}
  close() {}
  targetOf(id: string): ConnectTarget | undefined {
    return id === 's1'
      ? { host: '203.0.113.9', port: 22, user: 'ubuntu', instanceId: 'i-0123456789abcdef0', region: 'ap-northeast-1', label: 'web' }
      : undefined;
  }
}

function setup(opts: { always?: boolean; lookupMs?: number; firstScreen?: string } = {}) {
  const sessions = new FakeSessions();
  /** The inventory answers after `lookupMs` (the log's header waits for it). */
  const answerLater = async <T>(value: T): Promise<T> => {
    await new Promise((r) => setTimeout(r, opts.lookupMs ?? 0));
    return value;
  };
  const engine = stubEngine({
    sessions,
    listInstances: () =>
      answerLater({
        instances: [
          instanceOf({
            id: 'i-0123456789abcdef0',
            name: 'web\x1b[2J',
            type: 'c7g.large',
            az: 'ap-northeast-1c',
            publicIp: '203.0.113.9',
            privateIp: null,
          }),
        ],
        fetchedAt: 0,
        fromCache: true,
      }),
    openSession: async () => {
      // The shell's first screen can arrive before the open has returned its id.
      if (opts.firstScreen) sessions.emit('data', 's1', Buffer.from(opts.firstScreen));
      return { sessionId: 's1', label: 'web', instanceId: 'i-0123456789abcdef0', host: '203.0.113.9' };
    },
  });
  let settings: Settings = { ...defaultSettings(), sessionLog: { always: opts.always ?? false, timestamps: true } };
  const service = createAppService({ engine, settings: { get: () => settings, set: (s) => (settings = s) }, sections: [sessionLogSection()] });
  return { sessions, service, client: service.connect(() => {}) };
}

/** The window opens its session as the app does: the session is then this window's own. */
async function open(client: ReturnType<typeof setup>['client']): Promise<void> {
  await client.handlers['session.open']({ ref: 'web', openId: 'o1', cols: 80, rows: 24, start: false });
}

test('log.start logs output only, with the header; the session closing ends the log', async () => {
  const { sessions, client } = setup();
  await open(client);
  const baseline = sessions.listenerCount('data'); // the service's own output stream
  const { path } = await client.handlers['log.start']({ sessionId: 's1' });
  assert.equal(sessions.listenerCount('data'), baseline + 1);
  assert.equal(dirname(path), join(home, 'config', 'logs'));
  assert.equal((await client.handlers['log.start']({ sessionId: 's1' })).path, path, 'a second start keeps the same log');
  sessions.emit('data', 's1', Buffer.from('\x1b[1m$ \x1b[0mecho hi\r\nhi\r\n'));
  sessions.emit('data', 'other', Buffer.from('not this session\r\n'));
  sessions.emit('closed', 's1', 'exited');
  await new Promise((r) => setTimeout(r, 50));
  const text = readFileSync(path, 'utf8');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.match(text, /^# Instance: i-0123456789abcdef0$/m);
  assert.match(text, /^# Name: web\\x1b\[2J$/m);
  assert.match(text, /^# Type: c7g\.large$/m);
  assert.match(text, /^# AZ: ap-northeast-1c$/m);
  assert.match(text, /^# Address: ubuntu@203\.0\.113\.9:22$/m);
  assert.match(text, /^\[[^\]]+Z\] \$ echo hi$/m, 'time stamps follow the Settings');
  assert.ok(!text.includes('not this session'));
  // After the session closed, more output is not logged and stop says nothing is running.
  sessions.emit('data', 's1', Buffer.from('late\r\n'));
  assert.deepEqual(await client.handlers['log.stop']({ sessionId: 's1' }), { path: null });
  assert.ok(!readFileSync(path, 'utf8').includes('late'));
  assert.equal(sessions.listenerCount('data'), baseline, 'no listener left once no log runs');
});

test('log.stop closes the file and says where it is; a closed session is refused', async () => {
  const { sessions, client } = setup();
  await open(client);
  const { path } = await client.handlers['log.start']({ sessionId: 's1', timestamps: false });
  sessions.emit('data', 's1', Buffer.from('kept\r\n'));
  assert.deepEqual(await client.handlers['log.stop']({ sessionId: 's1' }), { path });
  sessions.emit('data', 's1', Buffer.from('after stop\r\n'));
  const text = readFileSync(path, 'utf8');
  assert.match(text, /^kept$/m);
  assert.ok(!text.includes('after stop'));
  await assert.rejects(client.handlers['log.start']({ sessionId: 'gone' }) as Promise<unknown>, /not open/);
});

test("another window's session is not this window's to log or stop", async () => {
  const { service, client } = setup();
  await open(client);
  const { path } = await client.handlers['log.start']({ sessionId: 's1' });
  const other = service.connect(() => {});
  await assert.rejects(other.handlers['log.start']({ sessionId: 's1' }) as Promise<unknown>, /not open/);
  assert.deepEqual(await other.handlers['log.stop']({ sessionId: 's1' }), { path: null });
  assert.deepEqual(await client.handlers['log.stop']({ sessionId: 's1' }), { path }, 'the owner’s log kept running');
});

test('Settings › every session: the log starts as the session opens, with its first screen and what came while the header was looked up', async () => {
  const { sessions, client } = setup({ always: true, lookupMs: 50, firstScreen: 'Last login: today\r\nmotd line\r\n' });
  await open(client);
  sessions.emit('data', 's1', Buffer.from('during lookup\r\n'));
  // The window asks after all this (one round trip later); the running log is the one it gets.
  const { path } = await client.handlers['log.start']({ sessionId: 's1' });
  sessions.emit('data', 's1', Buffer.from('after\r\n'));
  assert.deepEqual(await client.handlers['log.stop']({ sessionId: 's1' }), { path });
  const body = readFileSync(path, 'utf8').split('\n\n')[1]!.split('\n');
  assert.deepEqual(
    body.map((l) => l.replace(/^\[[^\]]+\] /, '')),
    ['Last login: today', 'motd line', 'during lookup', 'after', ''],
  );
});

test('without Settings › every session, opening a session starts no log', async () => {
  const { sessions, client } = setup({ always: false, firstScreen: 'motd\r\n' });
  const baseline = sessions.listenerCount('data');
  await open(client);
  assert.equal(sessions.listenerCount('data'), baseline, 'only the output stream listens: no log runs');
  assert.deepEqual(await client.handlers['log.stop']({ sessionId: 's1' }), { path: null });
});
