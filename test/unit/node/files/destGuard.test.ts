import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { AppError } from '../../../../src/common/errors.js';
import { assertLocalInside, assertRemoteInside, isInside } from '../../../../src/node/files/destGuard.js';
import { modeToKeep } from '../../../../src/node/files/treePlan.js';

// The last check before a copy writes: inside the destination by its words, and (locally) by
// where its directory really is.

const box = mkdtempSync(join(tmpdir(), 'tagssh-destguard-'));
after(() => rmSync(box, { recursive: true, force: true }));

describe('destGuard', () => {
  it('isInside: the root and below it, never above or beside it, whatever `..` says', () => {
    const cases: Array<[string, string, boolean]> = [
      ['/d', '/d', true],
      ['/d', '/d/a', true],
      ['/d', '/d/a/../b', true],
      ['/d', '/d/..', false],
      ['/d', '/d/../x', false],
      ['/d', '/d/a/../../x', false],
      ['/d', '/dx', false],
      ['/d', '/tmp/x', false],
      ['/d', '/d/..a', true],
    ];
    for (const [root, target, inside] of cases) assert.equal(isInside(root, target, path.posix), inside, `${target} in ${root}`);
    assert.equal(isInside('C:\\d', 'C:\\d\\..\\x', path.win32), false);
    assert.equal(isInside('C:\\d', 'C:\\d\\a', path.win32), true);
    assert.equal(isInside('C:\\d', 'D:\\d\\a', path.win32), false);
  });

  it('refuses a local path whose directory is a symlink leading out of the root, naming both', async () => {
    const root = join(box, 'dest');
    mkdirSync(join(root, 'sub'), { recursive: true });
    mkdirSync(join(box, 'elsewhere'));
    symlinkSync(join(box, 'elsewhere'), join(root, 'out'));
    await assertLocalInside(root, join(root, 'sub', 'f'), 'written');
    await assertLocalInside(root, root, 'created');
    for (const target of [join(root, 'out', 'f'), join(root, '..', 'f')]) {
      await assert.rejects(assertLocalInside(root, target, 'written'), (e: unknown) => {
        assert.ok(e instanceof AppError);
        assert.match(e.message, /is outside ".*dest", where this copy writes; not written/);
        return true;
      });
    }
    assert.throws(() => assertRemoteInside('/srv/d', '/srv/d/../x', 'written'), /outside "\/srv\/d"/);
    assertRemoteInside('/srv/d', '/srv/d/x', 'written');
  });

  it('-p keeps setuid, setgid and sticky only for root', () => {
    assert.equal(modeToKeep(0o104755, false), 0o755);
    assert.equal(modeToKeep(0o43777, false), 0o777);
    assert.equal(modeToKeep(0o104755, true), 0o4755);
  });
});
