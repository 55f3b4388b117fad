import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createAppService } from '../../../../src/node/service.js';
import { sessionLogSection } from '../../../../src/node/log/serviceSection.js';
import { defaultSettings, type Settings } from '../../../../src/common/model/settings.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { stubEngine } from '../../../support/engineStub.js';
import { instanceOf } from '../../../support/instance.js';
import { checkAsciicastV2 } from '../../../support/asciicastSpec.js';

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
  resize(id: string, cols: number, rows: number) {
    this.emit('resize', id, cols, rows);
  }
  sizeOf() {
    return { cols: 100, rows: 30 };
  }
  close() {}
  targetOf(id: string): ConnectTarget | undefined {
    return id === 's1'
      ? { host: '203.0.113.9', port: 22, user: 'ubuntu', instanceId: 'i-0123456789abcdef0', region: 'ap-northeast-1', label: 'web' }
      : undefined;
  }
}

function setup(opts: { always?: boolean; lookupMs?: number; firstScreen?: string; sessionLog?: Partial<Settings['sessionLog']> } = {}) {
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
  let settings: Settings = {
    ...defaultSettings(),
    sessionLog: { ...defaultSettings().sessionLog, always: opts.always ?? false, timestamps: true, ...opts.sessionLog },
  };
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
  const { path } = await client.handlers['log.start']({ kind: 'text', sessionId: 's1' });
  assert.equal(sessions.listenerCount('data'), baseline + 1);
  assert.equal(dirname(path), join(home, 'config', 'logs'));
  assert.equal((await client.handlers['log.start']({ kind: 'text', sessionId: 's1' })).path, path, 'a second start keeps the same log');
  sessions.emit('data', 's1', Buffer.from('\x1b[1m$ \x1b[0mecho hi\r\nhi\r\n'));
  sessions.emit('data', 'other', Buffer.from('not this session\r\n'));
  sessions.emit('closed', 's1', 'exited');
  // The log is written through a stream: wait for the session's output to reach the file.
  let text = readFileSync(path, 'utf8');
  for (const deadline = Date.now() + 5000; !/^hi$/m.test(text) && Date.now() < deadline; text = readFileSync(path, 'utf8'))
    await new Promise((r) => setTimeout(r, 10));
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.match(text, /^# Instance: i-0123456789abcdef0$/m);
  assert.match(text, /^# Name: web\\x1b\[2J$/m);
  assert.match(text, /^# Type: c7g\.large$/m);
  assert.match(text, /^# AZ: ap-northeast-1c$/m);
  assert.match(text, /^# Address: ubuntu@203\.0\.113\.9:22$/m);
  assert.match(text, /^\[[^\]]+[+-]\d\d:\d\d\] \$ echo hi$/m, 'time stamps follow the Settings');
  assert.ok(!text.includes('not this session'));
  // After the session closed, more output is not logged and stop says nothing is running.
  sessions.emit('data', 's1', Buffer.from('late\r\n'));
  assert.deepEqual(await client.handlers['log.stop']({ kind: 'text', sessionId: 's1' }), { path: null });
  assert.ok(!readFileSync(path, 'utf8').includes('late'));
  assert.equal(sessions.listenerCount('data'), baseline, 'no listener left once no log runs');
});

test('log.stop closes the file and says where it is; a closed session is refused', async () => {
  const { sessions, client } = setup();
  await open(client);
  const { path } = await client.handlers['log.start']({ kind: 'text', sessionId: 's1', timestamps: false });
  sessions.emit('data', 's1', Buffer.from('kept\r\n'));
  assert.deepEqual(await client.handlers['log.stop']({ kind: 'text', sessionId: 's1' }), { path });
  sessions.emit('data', 's1', Buffer.from('after stop\r\n'));
  const text = readFileSync(path, 'utf8');
  assert.match(text, /^kept$/m);
  assert.ok(!text.includes('after stop'));
  await assert.rejects(client.handlers['log.start']({ kind: 'text', sessionId: 'gone' }) as Promise<unknown>, /not open/);
});

test("another window's session is not this window's to log or stop", async () => {
  const { service, client } = setup();
  await open(client);
  const { path } = await client.handlers['log.start']({ kind: 'text', sessionId: 's1' });
  const other = service.connect(() => {});
  await assert.rejects(other.handlers['log.start']({ kind: 'text', sessionId: 's1' }) as Promise<unknown>, /not open/);
  assert.deepEqual(await other.handlers['log.stop']({ kind: 'text', sessionId: 's1' }), { path: null });
  assert.deepEqual(await client.handlers['log.stop']({ kind: 'text', sessionId: 's1' }), { path }, 'the owner’s log kept running');
});

test('Settings › every session: the log starts as the session opens, with its first screen and what came while the header was looked up', async () => {
  const { sessions, client } = setup({ always: true, lookupMs: 50, firstScreen: 'Last login: today\r\nmotd line\r\n' });
  await open(client);
  sessions.emit('data', 's1', Buffer.from('during lookup\r\n'));
  // The window asks after all this (one round trip later); the running log is the one it gets.
  const { path } = await client.handlers['log.start']({ kind: 'text', sessionId: 's1' });
  sessions.emit('data', 's1', Buffer.from('after\r\n'));
  assert.deepEqual(await client.handlers['log.stop']({ kind: 'text', sessionId: 's1' }), { path });
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
  assert.deepEqual(await client.handlers['log.stop']({ kind: 'text', sessionId: 's1' }), { path: null });
});

test('Record (kind cast): asciicast v2 at the PTY size, output and resizes with their times; it runs beside the text log and stops on its own', async () => {
  const { sessions, client } = setup();
  await open(client);
  const { path: cast } = await client.handlers['log.start']({ kind: 'cast', sessionId: 's1' });
  const { path: text } = await client.handlers['log.start']({ kind: 'text', sessionId: 's1' });
  assert.match(cast, /\.cast$/);
  sessions.emit('data', 's1', Buffer.from('\x1b[31mred\x1b[0m '));
  sessions.emit('data', 's1', Buffer.from([0xe6, 0x97])); // 日 split across chunks
  sessions.emit('data', 's1', Buffer.from([0xa5, 0x0d, 0x0a]));
  await client.handlers['session.resize']({ sessionId: 's1', cols: 120, rows: 40 });
  sessions.emit('data', 's1', Buffer.from('wide\r\n'));
  assert.deepEqual(await client.handlers['log.stop']({ kind: 'cast', sessionId: 's1' }), { path: cast });
  sessions.emit('data', 's1', Buffer.from('text only\r\n'));
  assert.deepEqual(await client.handlers['log.stop']({ kind: 'text', sessionId: 's1' }), { path: text });
  const spec = checkAsciicastV2(readFileSync(cast, 'utf8'));
  assert.deepEqual(spec.problems, []);
  assert.deepEqual([spec.header!.width, spec.header!.height, spec.resizes], [100, 30, ['120x40']]);
  assert.equal(spec.output, '\x1b[31mred\x1b[0m 日\r\nwide\r\n');
  assert.equal((spec.header!.tagssh as Record<string, string>).instanceId, 'i-0123456789abcdef0');
  assert.match(readFileSync(text, 'utf8'), /text only/);
  assert.equal(statSync(cast).mode & 0o777, 0o600);
});

test('every session in the format "both": a log and a recording side by side, in the Settings folder under its pattern', async () => {
  const folder = join(home, 'chosen-folder');
  const { sessions, client } = setup({ always: true, sessionLog: { folder, namePattern: '{region}_{name}_{yyyyMMdd}.log', format: 'both' } });
  await open(client);
  sessions.emit('data', 's1', Buffer.from('both\r\n'));
  const text = (await client.handlers['log.stop']({ kind: 'text', sessionId: 's1' })).path!;
  const cast = (await client.handlers['log.stop']({ kind: 'cast', sessionId: 's1' })).path!;
  assert.equal(dirname(text), folder);
  assert.match(text, /\/ap-northeast-1_web_2J_\d{8}\.log$/);
  assert.equal(cast, text.replace(/\.log$/, '.cast'));
  assert.deepEqual(checkAsciicastV2(readFileSync(cast, 'utf8')).problems, []);
});

test('the Logs view: list with what the headers say, read by name, reveal gives the path; names outside the folder are refused', async () => {
  const folder = join(home, 'listed');
  const { sessions, client } = setup({ sessionLog: { folder, format: 'both' } });
  await open(client);
  const { path: text } = await client.handlers['log.start']({ kind: 'text', sessionId: 's1' });
  const { path: cast } = await client.handlers['log.start']({ kind: 'cast', sessionId: 's1' });
  sessions.emit('data', 's1', Buffer.from('listed line\r\n'));
  sessions.emit('closed', 's1', 'exited');
  await new Promise((r) => setTimeout(r, 50));
  writeFileSync(join(folder, 'notes.md'), 'not a log');
  const list = await client.handlers['logs.list']({});
  assert.equal(list.folder, folder);
  assert.deepEqual(
    list.entries.map((e) => [e.file, e.kind, e.instanceId, e.name]).sort(),
    [
      [basename(cast), 'cast', 'i-0123456789abcdef0', 'web\x1b[2J'],
      [basename(text), 'text', 'i-0123456789abcdef0', 'web\\x1b[2J'],
    ].sort(),
  );
  assert.ok(list.entries.every((e) => e.started && !Number.isNaN(Date.parse(e.started))));
  const read = await client.handlers['logs.read']({ file: basename(text) });
  assert.match(read.text, /\] listed line$/m);
  assert.equal(read.kind, 'text');
  assert.deepEqual(await client.handlers['logs.reveal']({ file: basename(cast) }), { path: cast, revealed: false });
  symlinkSync('/etc/hostname', join(folder, 'escape.log'));
  for (const bad of ['../x.log', 'notes.md', 'escape.log', 'missing.log']) {
    assert.throws(() => client.handlers['logs.read']({ file: bad }), /No log named/, bad);
    assert.throws(() => client.handlers['logs.reveal']({ file: bad }), /No log named/, bad);
  }
  const empty = setup({ sessionLog: { folder: join(home, 'never-made') } });
  assert.deepEqual(await empty.client.handlers['logs.list']({}), { folder: join(home, 'never-made'), entries: [] });
});
