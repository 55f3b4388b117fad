import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// scripts/import-cycles.mjs (part of `npm run lint`): no import circle in src/, main/ or renderer/,
// whether the imports are static, type-only, re-exports or import(). Run on the project, and on
// throw-away trees that have one.

const script = join(import.meta.dirname, '../../../scripts/import-cycles.mjs');
const trees: string[] = [];
after(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'tagssh-cycles-'));
  trees.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const run = (root?: string) => spawnSync(process.execPath, [script, ...(root ? [root] : [])], { encoding: 'utf8' });

describe('import circles', () => {
  it('the project has none', () => {
    const r = run();
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  it('finds a circle made of a type-only import and a dynamic import(), and names its files in order', () => {
    const r = run(
      tree({
        'src/node/a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
        'src/node/b.ts': "export type B = string;\nexport const load = () => import('./c.js');\n",
        'src/node/c.ts': "export { type A } from './a.js';\n",
        'src/node/free.ts': "import './b.js';\n",
      }),
    );
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^import circle \(3 files\): src\/node\/a\.ts > src\/node\/b\.ts > src\/node\/c\.ts > src\/node\/a\.ts$/m);
    assert.match(r.stdout, /^1 import circle\(s\)/m);
    assert.doesNotMatch(r.stdout, /free\.ts/);
  });

  it('follows directory imports and the faces too; a tree without circles passes', () => {
    const circle = tree({ 'renderer/x/index.ts': "import '../y.js';\n", 'renderer/y.ts': "import './x';\n" });
    assert.equal(run(circle).status, 1);
    const line = tree({ 'main/a.ts': "import './b.js';\n", 'main/b.ts': "import 'node:fs';\n", 'src/common/c.ts': 'export {};\n' });
    const r = run(line);
    assert.equal(r.status, 0, r.stdout);
    assert.equal(r.stdout, '');
  });
});
