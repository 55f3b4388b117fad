import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../../lab/run.js';

// The test runner (scripts/test.mjs) run for real in throw-away trees holding this checkout's
// runner scripts and a few test files: a hung test fails as timed out while its neighbours pass;
// a whole-suite run below test/count-floor fails and says how to fix it (a renamed file), one
// above it says how to raise it; a run of named files is not held to the floor.

const root = join(import.meta.dirname, '../../..');
const trees: string[] = [];
after(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

const PASSING = `import { test } from 'node:test';\ntest('one', () => {});\ntest('two', () => {});\n`;

function tree(floor: number, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-runner-'));
  trees.push(dir);
  mkdirSync(join(dir, 'scripts'));
  for (const f of ['test.mjs', 'test-timeout.mjs', 'test-floor.mjs', 'netns.mjs']) copyFileSync(join(root, 'scripts', f), join(dir, 'scripts', f));
  // The build is this checkout's business, not the runner's: a tree without sources skips it.
  writeFileSync(join(dir, 'scripts/build.mjs'), '');
  writeFileSync(join(dir, 'package.json'), '{"name":"runner-tree","private":true,"type":"module"}\n');
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(dir, 'test/unit'), { recursive: true });
  writeFileSync(join(dir, 'test/count-floor'), `${floor}\n`);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'test', name), text);
  return dir;
}

const runner = (dir: string, args: string[] = [], env: Record<string, string> = {}) => {
  // As from a shell: not as a file of this run (node --test marks its children with NODE_TEST_CONTEXT).
  const { NODE_TEST_CONTEXT: _, TEST_TIMEOUT_MS: __, ...outer } = process.env;
  return runProcess(process.execPath, [join(dir, 'scripts/test.mjs'), ...args], { env: { ...outer, ...env } });
};

describe('scripts/test.mjs', () => {
  it('a test that never ends fails as timed out after TEST_TIMEOUT_MS; the others in its file pass', async () => {
    const dir = tree(3, {
      'unit/hang.test.ts': `import { test } from 'node:test';\ntest('quick', () => {});\ntest('hangs', () => new Promise(() => setInterval(() => {}, 1000)));\ntest('after it', () => {});\n`,
    });
    const t0 = Date.now();
    const r = await runner(dir, [], { TEST_TIMEOUT_MS: '1500' });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /✖ hangs \(\d+(\.\d+)?ms\)\n\s+'test timed out after 1500ms'/);
    assert.match(r.stdout, /✔ quick/);
    assert.match(r.stdout, /✔ after it/);
    assert.ok(Date.now() - t0 < 30_000, 'the run ended soon after the timeout');
  });

  it('a whole run at the floor passes and says so', async () => {
    const dir = tree(2, { 'unit/a.test.ts': PASSING });
    const r = await runner(dir);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^2 tests ran \(floor: 2\)\.$/m);
  });

  it('a renamed test file drops the run below the floor: it fails, naming the cause and the fix', async () => {
    const dir = tree(4, { 'unit/a.test.ts': PASSING, 'unit/b.test.ts': PASSING });
    assert.equal((await runner(dir)).code, 0);
    renameSync(join(dir, 'test/unit/b.test.ts'), join(dir, 'test/unit/b.tests.ts'));
    const r = await runner(dir);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /Only 2 tests ran; test\/count-floor says at least 4\. A test file may have been renamed/);
    assert.match(r.stderr, /echo 2 > test\/count-floor/);
  });

  it('more tests than the floor pass, and the run says how to raise it', async () => {
    const dir = tree(1, { 'unit/a.test.ts': PASSING });
    const r = await runner(dir);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /2 tests ran \(floor: 1\)\. Tests were added: raise the floor with {2}echo 2 > test\/count-floor {2}and commit it\./);
  });

  it('named files are not held to the floor', async () => {
    const dir = tree(10, { 'unit/a.test.ts': PASSING, 'unit/b.test.ts': PASSING });
    const r = await runner(dir, ['test/unit/a.test.ts']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /floor/);
  });
});
