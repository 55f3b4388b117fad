import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';

// The project's own lint configuration, run on small sources placed (by name only) in each layer:
// static and dynamic imports alike must keep the floors src/common → src/node → main/, renderer/.

const eslint = new ESLint({ cwd: join(import.meta.dirname, '../../../..') });

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'local/layering').map((m) => m.message);
}

describe('the layer rule', () => {
  it('refuses a dynamic import() that runs up a floor (the CLI fast paths are import()s)', async () => {
    const errors = await layerErrors('src/common/probe.ts', "export async function f() { return import('../node/engine.js'); }\n");
    assert.deepEqual(errors, ['src/common may not import src/node: layers import downward only, and the faces meet only through src/common/contract.ts.']);
    assert.equal((await layerErrors('src/node/probe.ts', 'export const f = () => import(`../../renderer/index.js`);\n')).length, 1);
  });

  it('refuses static imports and re-exports up a floor, and between the two faces', async () => {
    assert.equal((await layerErrors('src/node/probe.ts', "import { x } from '../../main/index.js';\nexport { x };\n")).length, 1);
    assert.equal((await layerErrors('src/common/probe.ts', "export * from '../node/engine.js';\n")).length, 1);
    assert.equal((await layerErrors('renderer/probe.ts', "export { createEngine } from '../src/node/engine.js';\n")).length, 1);
    assert.equal((await layerErrors('main/probe.ts', "import '../renderer/index.js';\n")).length, 1);
    assert.equal((await layerErrors('src/node/probe.ts', "export type E = typeof import('../../main/index.js');\n")).length, 1);
  });

  it('refuses packages a floor may not use, and an import() it cannot read', async () => {
    assert.deepEqual(await layerErrors('renderer/probe.ts', "export const f = () => import('node:fs');\n"), [
      'renderer/ runs without Node: no node:* imports.',
    ]);
    assert.deepEqual(await layerErrors('src/node/probe.ts', "import 'electron';\n"), ['Only main/ may import Electron.']);
    assert.deepEqual(await layerErrors('main/probe.ts', "import '@xterm/xterm';\n"), ['UI libraries belong in renderer/.']);
    assert.deepEqual(await layerErrors('src/node/probe.ts', 'export const f = (m: string) => import(m);\n'), [
      'A computed import() cannot be checked against the layers: import a constant path.',
    ]);
  });

  it('refuses the CLI face to the engine and to the app, in static and dynamic imports alike', async () => {
    const why =
      "src/node may not import src/node/cli: the CLI is a face, imported by no one (the engine says codes; the CLI's flags and words stay in src/node/cli).";
    assert.deepEqual(await layerErrors('src/node/tunnels/probe.ts', "import { printable } from '../cli/output.js';\nexport { printable };\n"), [why]);
    assert.deepEqual(await layerErrors('src/node/probe.ts', "export const f = () => import('./cli/commands/tunnel/action.js');\n"), [why]);
    assert.deepEqual(await layerErrors('src/node/bench/probe.ts', "export type F = typeof import('../cli/flags.js');\n"), [why]);
    assert.equal((await layerErrors('main/probe.ts', "import '../src/node/cli/output.js';\n")).length, 1);
    assert.equal((await layerErrors('src/common/probe.ts', "export * from '../node/cli/output.js';\n")).length, 1);
    // A directory merely named like it is not the CLI.
    assert.deepEqual(await layerErrors('src/node/probe.ts', "import './client/x.js';\nimport './clip.js';\n"), []);
  });

  it('lets the CLI import the engine, the common floor and itself', async () => {
    assert.deepEqual(
      await layerErrors(
        'src/node/cli/commands/tunnel/action.ts',
        "import '../../output.js';\nimport '../../../tunnels/runner.js';\nexport const f = () => import('../../../../common/errors.js');\n",
      ),
      [],
    );
    assert.deepEqual(await layerErrors('src/node/cli/probe.ts', "import 'electron';\n"), ['Only main/ may import Electron.']);
    assert.equal((await layerErrors('src/node/cli/probe.ts', "import '../../../main/index.js';\n")).length, 1);
  });

  it('lets every floor import downward and the faces use the contract', async () => {
    assert.deepEqual(await layerErrors('renderer/probe.ts', "import '../src/common/contract.js';\nexport const f = () => import('@xterm/xterm');\n"), []);
    assert.deepEqual(
      await layerErrors('main/probe.ts', "import 'electron';\nimport '../src/node/engine.js';\nexport const f = () => import('../src/common/contract.js');\n"),
      [],
    );
    assert.deepEqual(await layerErrors('src/node/probe.ts', "import 'node:fs';\nexport const f = () => import('../common/vocab.js');\n"), []);
    // Tests and scripts sit outside the house.
    assert.deepEqual(await layerErrors('test/probe.ts', "import '../main/index.js';\nimport '../renderer/index.js';\n"), []);
  });
});
