import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useSshd } from '../../../lab/useSshd.js';
import { SessionManager } from '../../../../src/node/ssh/sessionManager.js';
import { connect } from '../../../../src/node/ssh/connection.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { filesSection } from '../../../../src/node/files/serviceSection.js';
import { FILE_CHUNK_BYTES } from '../../../../src/common/files/contract.js';
import { contract, type Handlers, type Payload } from '../../../../src/common/contract.js';
import type { AppServiceDeps, Engine } from '../../../../src/node/service/types.js';
import type { AppError } from '../../../../src/common/errors.js';

// The file panel's backend against a real sshd: a terminal session's connection carries the
// SFTP channel (no second handshake), uploads land whole under their name only when complete,
// downloads come back byte for byte, and "follow shell" finds the tab's own shell's directory.

const lab = useSshd({ prefix: 'tagssh-files-', address: '127.0.0.11' });
let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'tagssh-files-remote-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const target = (): ConnectTarget => lab.target();

type Events = Array<{ event: string; payload: unknown }>;

function setup() {
  let connects = 0;
  const sm = new SessionManager({
    connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null },
    connect: (t, o) => {
      connects++;
      return connect(t, o);
    },
  });
  const events: Events = [];
  const deps = { engine: { sessions: sm } as unknown as Engine, settings: {} } as AppServiceDeps;
  const raw = filesSection({ idleMs: 1500 })({
    deps,
    emit: (event, payload) => events.push({ event, payload }),
    clientId: 'test',
    ownsSession: () => true,
    onDispose: () => {},
  }) as Handlers;
  // Every call goes through its contract schema, as over the wire.
  const call = async <M extends keyof typeof contract.calls & `files.${string}`>(m: M, input: unknown) => {
    const parsed = contract.calls[m].input.parse(input);
    return contract.calls[m].output.parse(await (raw[m] as (i: unknown) => unknown)(parsed)) as Awaited<ReturnType<Handlers[M]>>;
  };
  const done = (id: string) =>
    events.filter((e) => e.event === 'files.done' && (e.payload as Payload<'files.done'>).transferId === id).map((e) => e.payload as Payload<'files.done'>);
  return { sm, call, events, done, connects: () => connects };
}

async function upload(
  call: ReturnType<typeof setup>['call'],
  sessionId: string,
  dirPath: string,
  name: string,
  data: Buffer,
  order: 'forward' | 'reverse' = 'forward',
) {
  const transferId = randomUUID();
  await call('files.upload', { sessionId, transferId, dir: dirPath, name, size: data.length });
  const offsets: number[] = [];
  for (let o = 0; o < data.length; o += FILE_CHUNK_BYTES) offsets.push(o);
  if (order === 'reverse') offsets.reverse();
  for (const offset of offsets)
    await call('files.uploadChunk', { transferId, offset, data: data.subarray(offset, offset + FILE_CHUNK_BYTES).toString('base64') });
  return transferId;
}

async function download(call: ReturnType<typeof setup>['call'], sessionId: string, dirPath: string, name: string) {
  const transferId = randomUUID();
  const { size } = await call('files.download', { sessionId, transferId, dir: dirPath, name });
  const parts = await Promise.all(
    Array.from({ length: Math.ceil(size / FILE_CHUNK_BYTES) }, (_, i) => call('files.downloadChunk', { transferId, offset: i * FILE_CHUNK_BYTES })),
  );
  return Buffer.concat(parts.map((p) => Buffer.from(p.data, 'base64')));
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function waitFor<T>(fn: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('file panel section', { timeout: 60_000 }, () => {
  it('rides on the terminal session’s connection: upload, list, download by checksum, rename, mkdir, delete', async () => {
    const { sm, call, done, connects } = setup();
    const sessionId = await sm.open(target(), { cols: 80, rows: 24 });
    const home = await call('files.list', { sessionId });
    assert.equal(home.path, await import('node:os').then((os) => os.homedir()));
    const data = randomBytes(FILE_CHUNK_BYTES * 2 + 12345);
    const id = await upload(call, sessionId, work, 'blob.bin', data, 'reverse');
    assert.deepEqual(done(id), [{ transferId: id, outcome: 'done' }]);
    assert.equal(sha(readFileSync(join(work, 'blob.bin'))), sha(data));
    assert.deepEqual(readdirSync(work), ['blob.bin'], 'no temp file left behind');
    const listed = await call('files.list', { sessionId, path: work });
    assert.deepEqual(
      listed.entries.map((e) => [e.name, e.kind, e.size]),
      [['blob.bin', 'file', data.length]],
    );
    assert.equal(sha(await download(call, sessionId, work, 'blob.bin')), sha(data));

    await call('files.mkdir', { sessionId, dir: work, name: 'sub dir' });
    await call('files.rename', { sessionId, dir: work, from: 'blob.bin', to: 'renamed.bin' });
    await assert.rejects(call('files.rename', { sessionId, dir: work, from: 'renamed.bin', to: 'sub dir' }), (e: AppError) => {
      assert.equal((e.details as { fileError?: string } | undefined)?.fileError, 'exists', String(e.stack));
      return true;
    });
    assert.deepEqual(
      (await call('files.list', { sessionId, path: work })).entries.map((e) => `${e.kind}:${e.name}`),
      ['dir:sub dir', 'file:renamed.bin'],
    );
    writeFileSync(join(work, 'sub dir', 'inner'), 'x');
    await assert.rejects(call('files.delete', { sessionId, dir: work, name: 'sub dir' }), /not empty/);
    await call('files.delete', { sessionId, dir: work, name: 'sub dir', recursive: true });
    await call('files.delete', { sessionId, dir: work, name: 'renamed.bin' });
    assert.deepEqual(readdirSync(work), []);
    assert.equal(connects(), 1, 'one SSH connection for the shell and every file operation');
    sm.close(sessionId);
  });

  it('an upload is not under its name until complete; cancel removes its temp file; replacing asks first', async () => {
    const { sm, call, done } = setup();
    const sessionId = await sm.open(target(), { cols: 80, rows: 24 });
    const data = randomBytes(FILE_CHUNK_BYTES * 3);
    const transferId = randomUUID();
    await call('files.upload', { sessionId, transferId, dir: work, name: 'big.bin', size: data.length });
    await call('files.uploadChunk', { transferId, offset: 0, data: data.subarray(0, FILE_CHUNK_BYTES).toString('base64') });
    assert.ok(!existsSync(join(work, 'big.bin')), 'the final name does not exist mid-upload');
    assert.equal(readdirSync(work).length, 1);
    assert.match(readdirSync(work)[0]!, /^\.big\.bin\.tagssh-part-/);
    // A chunk twice, or at an offset that is not a chunk's, is refused.
    await assert.rejects(
      call('files.uploadChunk', { transferId, offset: 0, data: data.subarray(0, FILE_CHUNK_BYTES).toString('base64') }),
      /already transferred/,
    );
    await assert.rejects(call('files.uploadChunk', { transferId, offset: 7, data: 'AAAA' }), /not a chunk/);
    assert.deepEqual(await call('files.cancel', { transferId }), { cancelled: true });
    assert.deepEqual(
      done(transferId).map((d) => d.outcome),
      ['cancelled'],
    );
    assert.deepEqual(readdirSync(work), [], 'the temp file is gone');
    await assert.rejects(
      call('files.uploadChunk', { transferId, offset: FILE_CHUNK_BYTES, data: data.subarray(FILE_CHUNK_BYTES, 2 * FILE_CHUNK_BYTES).toString('base64') }),
      (e: AppError) => e.code === 'CANCELLED',
    );

    writeFileSync(join(work, 'old.txt'), 'old');
    await assert.rejects(
      upload(call, sessionId, work, 'old.txt', Buffer.from('new')),
      (e: AppError) => (e.details as { fileError: string }).fileError === 'exists',
    );
    const rid = randomUUID();
    await call('files.upload', { sessionId, transferId: rid, dir: work, name: 'old.txt', size: 3, replace: true });
    await call('files.uploadChunk', { transferId: rid, offset: 0, data: Buffer.from('new').toString('base64') });
    assert.equal(readFileSync(join(work, 'old.txt'), 'utf8'), 'new');

    // An abandoned upload (the window went away) is given up after the idle time.
    const sid = randomUUID();
    await call('files.upload', { sessionId, transferId: sid, dir: work, name: 'abandoned', size: 10 });
    await waitFor(() => done(sid).length > 0, 'the stalled transfer to end');
    assert.equal(done(sid)[0]!.outcome, 'failed');
    assert.deepEqual(readdirSync(work).sort(), ['old.txt']);
    rmSync(join(work, 'old.txt'));
    sm.close(sessionId);
  });

  it('names with newlines, escapes, quotes and $() are files like any other (SFTP, no shell)', async () => {
    const { sm, call } = setup();
    const sessionId = await sm.open(target(), { cols: 80, rows: 24 });
    const name = 'evil\n\x1b[31mred\x07 $(touch pwned) "q" \'s\' ü';
    await upload(call, sessionId, work, name, Buffer.from('hi'));
    assert.deepEqual(readdirSync(work), [name]);
    assert.deepEqual(
      (await call('files.list', { sessionId, path: work })).entries.map((e) => e.name),
      [name],
    );
    assert.equal((await download(call, sessionId, work, name)).toString(), 'hi');
    await call('files.delete', { sessionId, dir: work, name });
    assert.deepEqual(readdirSync(work), []);
    sm.close(sessionId);
  });

  it('follow shell: each tab’s own shell directory, also from a subshell, on a shared connection', async () => {
    const { sm, call, connects } = setup();
    const out = new Map<string, string>();
    sm.on('data', (id: string, c: Buffer) => out.set(id, (out.get(id) ?? '') + c.toString()));
    const a = await sm.open(target(), { cols: 80, rows: 24 });
    const b = await sm.open(target(), { cols: 80, rows: 24 });
    const odd = join(work, 'dir with\nnewline');
    rmSync(odd, { recursive: true, force: true });
    await import('node:fs').then((fs) => fs.mkdirSync(odd));
    sm.write(a, `cd /usr/share && echo A-$((1+1))\n`);
    sm.write(b, `cd ${work} && cd 'dir with'$'\\n''newline' && echo B-$((2+2))\n`);
    await waitFor(() => /A-2/.test(out.get(a) ?? '') && /B-4/.test(out.get(b) ?? ''), 'both cds');
    assert.deepEqual(await call('files.cwd', { sessionId: a }), { path: '/usr/share' });
    assert.deepEqual(await call('files.cwd', { sessionId: b }), { path: odd });
    sm.write(a, 'sh -c "cd /etc && exec sh"\n');
    // Until the child shell runs, the login shell's /usr/share is the right answer.
    let cwd = await call('files.cwd', { sessionId: a });
    for (const deadline = Date.now() + 10_000; cwd.path !== '/etc' && Date.now() < deadline; cwd = await call('files.cwd', { sessionId: a }))
      await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(cwd, { path: '/etc' }, 'the foreground process, not the login shell');
    assert.equal(connects(), 1);
    sm.close(a);
    sm.close(b);
    rmSync(odd, { recursive: true, force: true });
  });

  it('a closed session has no files; closing the last tab closes the connection the panel used', async () => {
    const { sm, call } = setup();
    const sessionId = await sm.open(target(), { cols: 80, rows: 24 });
    await call('files.list', { sessionId, path: '/' });
    const { connection, release } = await sm.acquire(target());
    release();
    sm.close(sessionId);
    await waitFor(() => connection.closed, 'the connection to close once the tab and its panel let go');
    await assert.rejects(call('files.list', { sessionId, path: '/' }), (e: AppError) => e.code === 'SESSION_CLOSED');
  });

  it('another window’s session is not this panel’s: its files and its shell’s directory are refused', async () => {
    const { sm } = setup();
    const sessionId = await sm.open(target(), { cols: 80, rows: 24 });
    const deps = { engine: { sessions: sm } as unknown as Engine, settings: {} } as AppServiceDeps;
    const other = filesSection()({ deps, emit: () => {}, clientId: 'other', ownsSession: (id) => id !== sessionId, onDispose: () => {} }) as Handlers;
    await assert.rejects(
      Promise.resolve().then(() => other['files.list']({ sessionId, path: '/' })),
      (e: AppError) => e.code === 'SESSION_CLOSED',
    );
    await assert.rejects(
      Promise.resolve().then(() => other['files.cwd']({ sessionId })),
      (e: AppError) => e.code === 'SESSION_CLOSED',
    );
    sm.close(sessionId);
  });
});
