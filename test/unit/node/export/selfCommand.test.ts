import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tagsshSelfCommand } from '../../../../src/node/export/selfCommand.js';

const dir = mkdtempSync(join(tmpdir(), 'tagssh-self-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the command exported configs run', () => {
  it('is the running Node and the real path of the program (a symlink such as npm bin is resolved)', () => {
    const script = join(dir, 'tagssh.mjs');
    writeFileSync(script, '');
    symlinkSync(script, join(dir, 'tagssh'));
    assert.deepEqual(tagsshSelfCommand({ script: join(dir, 'tagssh') }), [process.execPath, script]);
  });

  it('refuses, saying what to do, rather than write a command that cannot run', () => {
    const refused = (input: Parameters<typeof tagsshSelfCommand>[0], why: RegExp) =>
      assert.throws(
        () => tagsshSelfCommand(input),
        (e: Error & { code?: string; hint?: string }) => e.code === 'EXPORT_INVALID' && why.test(e.message) && /export ssh-config/.test(e.hint ?? ''),
      );
    refused({ execPath: 'node', script: import.meta.filename }, /not absolute/);
    refused({ execPath: join(dir, 'no-node'), script: import.meta.filename }, /not executable/);
    refused({ script: join(dir, 'missing.mjs') }, /not a readable file/);
    refused({ script: dir }, /not a readable file/);
  });
});
