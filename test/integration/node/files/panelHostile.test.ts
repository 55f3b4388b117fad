import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useSshd } from '../../../lab/useSshd.js';
import { boundsTree, escapeTree, hostileSubsystem, writeHostileSpec } from '../../../lab/hostileSftp.js';
import { SessionManager } from '../../../../src/node/ssh/sessionManager.js';
import { filesSection } from '../../../../src/node/files/serviceSection.js';
import { LIST_LIMIT_MAX, LIST_MAX_ENTRIES } from '../../../../src/common/files/contract.js';
import { contract, type Handlers } from '../../../../src/common/contract.js';
import type { AppServiceDeps, Engine } from '../../../../src/node/service/types.js';
import { AppError } from '../../../../src/common/errors.js';

// The file panel's backend (the engine every tab and tunnel shares) against the lab's hostile SFTP
// server behind a real sshd: a listing that never ends is read only as far as the panel shows,
// names that are not one path component are listed as the text they are but cannot be downloaded,
// opened or deleted by that name, and a recursive delete does not read an endless listing whole.

const spec = join(mkdtempSync(join(tmpdir(), 'tagssh-panel-hostile-')), 'spec.json');
writeHostileSpec(spec, { root: { entries: [] } });
const lab = useSshd({ prefix: 'tagssh-panel-hostile-', address: '127.0.0.122', sftpSubsystem: hostileSubsystem(spec) });

function setup() {
  const sm = new SessionManager({ connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null } });
  const deps = { engine: { sessions: sm } as unknown as Engine, settings: {} } as AppServiceDeps;
  const raw = filesSection({ idleMs: 5000 })({ deps, emit: () => {}, clientId: 'test', ownsSession: () => true, onDispose: () => {} }) as Handlers;
  // Every call goes through its contract schema, as over the wire.
  const call = async <M extends keyof typeof contract.calls & `files.${string}`>(m: M, input: unknown) => {
    const parsed = contract.calls[m].input.parse(input);
    return contract.calls[m].output.parse(await (raw[m] as (i: unknown) => unknown)(parsed)) as Awaited<ReturnType<Handlers[M]>>;
  };
  return { sm, call };
}

before(async () => {
  await lab.ready;
  const tree = boundsTree();
  tree.root.entries.push(...escapeTree('/tmp/abs-x').root.entries);
  writeHostileSpec(spec, tree);
});

describe('file panel against a hostile server', { timeout: 120_000 }, () => {
  it('pages a listing that never ends: the first 5000, then as many as asked up to the most, never the whole', async () => {
    const { sm, call } = setup();
    const sessionId = await sm.open(lab.target(), { cols: 80, rows: 24 });
    const first = await call('files.list', { sessionId, path: '/bomb' });
    assert.equal(first.entries.length, LIST_MAX_ENTRIES);
    assert.equal(first.truncated, true);
    const heap = process.memoryUsage().heapUsed;
    const most = await call('files.list', { sessionId, path: '/bomb', limit: LIST_LIMIT_MAX });
    assert.equal(most.entries.length, LIST_LIMIT_MAX);
    assert.equal(most.truncated, true);
    assert.ok(process.memoryUsage().heapUsed - heap < 256 * 1024 ** 2, 'memory stays within what was asked for');
    assert.throws(() => contract.calls['files.list'].input.parse({ sessionId, path: '/bomb', limit: LIST_LIMIT_MAX + 1 }), /too_big/);
    await assert.rejects(call('files.delete', { sessionId, dir: '/', name: 'bomb', recursive: true }), (e: unknown) => {
      assert.ok(e instanceof AppError, String(e));
      assert.match(e.message, /lists more than 100000 entries/);
      return true;
    });
    sm.close(sessionId);
  });

  it('lists names that are not one path component as text, and refuses them as names to download, open or delete', async () => {
    const { sm, call } = setup();
    const sessionId = await sm.open(lab.target(), { cols: 80, rows: 24 });
    const listed = await call('files.list', { sessionId, path: '/data' });
    const names = listed.entries.map((e) => e.name);
    for (const n of ['ok.txt', '../escape-1', 'sub/../../../escape-2', 'nul\0byte']) assert.ok(names.includes(n), `${JSON.stringify(n)} listed`);
    for (const name of ['../escape-1', 'sub/../../../escape-2', '/tmp/abs-x', 'nul\0byte', '..', '.'])
      for (const m of ['files.download', 'files.delete'] as const)
        await assert.rejects(call(m, { sessionId, transferId: randomUUID(), dir: '/data', name }), /not a file name/, `${m} ${JSON.stringify(name)}`);
    sm.close(sessionId);
  });
});
