import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceStore } from '../../../../src/node/workspace/workspaceStore.js';

// The workspace file: each page's tabs (a reloaded page replaces its own list), the previous
// run's tabs offered once, a damaged file offering nothing.

const tab = (n: number) => ({ instanceId: `i-0000000000000000${n}`, label: `web-${n}`, region: 'eu-west-1' });
const PAGE_A = 'page-aaaaaaaaaaaaaaaa';
const PAGE_B = 'page-bbbbbbbbbbbbbbbb';

test('a run’s tabs by page are the next run’s, offered once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-ws-'));
  try {
    const path = join(dir, 'workspace.json');
    const run1 = new WorkspaceStore(path);
    assert.deepEqual(run1.takePrevious().tabs, []);
    run1.save(PAGE_A, [tab(1), tab(2)]);
    run1.save(PAGE_B, [tab(3)]);
    run1.save(PAGE_A, [tab(2)]); // page A closed web-1
    const run2 = new WorkspaceStore(path);
    const previous = run2.takePrevious();
    assert.deepEqual(previous.tabs, [tab(2), tab(3)]);
    assert.equal(typeof previous.savedAt, 'number');
    assert.deepEqual(run2.takePrevious().tabs, [], 'a second page is offered nothing');
    writeFileSync(path, '{not json');
    assert.deepEqual(new WorkspaceStore(path).takePrevious().tabs, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the running tunnels are kept beside the tabs, the whole list replaced on each change, and offered once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-ws-'));
  try {
    const path = join(dir, 'workspace.json');
    const run1 = new WorkspaceStore(path);
    const a = { id: 'tunnel-a', label: 'web-1' };
    const b = { id: 'tunnel-b', instanceId: 'i-00000000000000002', region: 'eu-west-1', label: 'env=staging' };
    run1.saveTunnels([a, b]);
    run1.save(PAGE_A, [tab(1)]);
    run1.saveTunnels([b]); // tunnel-a stopped
    const previous = new WorkspaceStore(path).takePrevious();
    assert.deepEqual(previous.tunnels, [b]);
    assert.deepEqual(previous.tabs, [tab(1)]);
    // A file from before tunnels were kept offers its tabs and no tunnels.
    writeFileSync(path, JSON.stringify({ schemaVersion: 1, data: { savedAt: 1, tabs: [tab(3)] } }));
    assert.deepEqual(new WorkspaceStore(path).takePrevious(), { savedAt: 1, tabs: [tab(3)], tunnels: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
