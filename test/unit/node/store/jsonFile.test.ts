import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJsonFile, writeJsonFile } from '../../../../src/node/store/jsonFile.js';

// Atomic writes leave no litter: a writer killed between its temp write and the rename leaves a
// temp file, and the next write removes it unless its process is still alive.

const dir = mkdtempSync(join(tmpdir(), 'tagssh-jsonfile-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('writeJsonFile', () => {
  it("removes temp files of writers that died (of any file in the directory), keeps a live writer's and other files", async () => {
    const path = join(dir, 'settings.json');
    const orphan = `${path}.${deadPid()}.0badc0de.tmp`;
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      const inUse = `${path}.${live.pid}.00c0ffee.tmp`;
      const otherFile = join(dir, `results.json.${deadPid()}.deadbeef.tmp`);
      const lookalike = `${path}.backup.tmp`;
      for (const p of [orphan, inUse, otherFile, lookalike]) writeFileSync(p, '{');

      writeJsonFile(path, 1, { n: 1 });

      assert.equal(existsSync(orphan), false, "the dead writer's temp file is swept");
      assert.equal(existsSync(inUse), true, "a live writer's temp file stays");
      assert.equal(existsSync(otherFile), false, "a dead writer's temp file of another file in the directory goes too (results are written once each)");
      assert.equal(existsSync(lookalike), true, 'a name that is not a temp file of ours stays');
      assert.deepEqual(
        readJsonFile(path, 1, () => null),
        { n: 1 },
      );
      assert.deepEqual(
        readdirSync(dir).filter((n) => /\.[0-9a-f]{8}\.tmp$/.test(n) && !n.includes(String(live.pid))),
        [],
      );
    } finally {
      live.kill();
    }
  });
});
