import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonTunnelStore } from '../../../../src/node/tunnels/saved.js';

// tunnels.json across the version bump that brought tag tunnels: version 1 (instance tunnels
// only) reads as it is and is written back as version 2; a file from a newer TagSSH is refused.

test('a version-1 file is read and rewritten as version 2; a newer one is refused, not overwritten', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-tunnels-file-'));
  try {
    const path = join(dir, 'tunnels.json');
    const v1 = { id: 'abcdef-1', instanceId: 'i-0123456789abcdef0', region: 'us-east-1', label: 'web', kind: 'local', port: 8080, host: 'db', hostPort: 5432 };
    writeFileSync(path, JSON.stringify({ schemaVersion: 1, data: [v1] }));
    const store = jsonTunnelStore(path);
    assert.deepEqual(store.list(), [v1]);
    const tag = { id: 'abcdef-2', tag: { key: 'env', value: 'staging' }, label: 'env=staging', kind: 'dynamic' as const, port: 0 };
    store.update((list) => [...list, tag]);
    const file = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    assert.deepEqual(file, { schemaVersion: 2, data: [v1, tag] });

    const newer = JSON.stringify({ schemaVersion: 3, data: [] });
    writeFileSync(path, newer);
    assert.throws(() => store.list(), /written by a newer TagSSH \(schema 3 > 2\)/);
    assert.throws(() => store.update((l) => l), /newer TagSSH/);
    assert.equal(readFileSync(path, 'utf8'), newer);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
