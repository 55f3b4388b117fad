import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sshConfigEnv } from '../../../../src/node/export/exportEnv.js';

// What the app's OpenSSH export runs as ProxyCommand: this TagSSH when the backend is the CLI,
// else the tagssh installed on PATH by real path, else nothing (and why).

const ROOT = join(import.meta.dirname, '../../../..');
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tagssh-env-')));
after(() => rmSync(dir, { recursive: true, force: true }));

const home = join(dir, 'home');
const knownHostsFile = join(home, 'config', 'known_hosts');
/** A PATH of fresh directories, made for one case. */
const pathOf = (...dirs: string[]) => {
  for (const d of dirs) mkdirSync(d, { recursive: true });
  return dirs.join(':');
};
const asApp = (PATH: string) => sshConfigEnv({ script: import.meta.filename, env: { PATH, TAGSSH_HOME: home } });

describe('export.sshConfigEnv', () => {
  it('as the tagssh CLI: the running Node and the real path of bin/tagssh.mjs, whatever PATH says', () => {
    const link = join(pathOf(join(dir, 'npm-bin')), 'tagssh');
    symlinkSync(join(ROOT, 'bin/tagssh.mjs'), link);
    const viaLink = sshConfigEnv({ script: link, env: { PATH: '', TAGSSH_HOME: home } });
    assert.deepEqual(viaLink, { tagsshCommand: [process.execPath, realpathSync(join(ROOT, 'bin/tagssh.mjs'))], knownHostsFile });
    assert.deepEqual(sshConfigEnv({ script: join(ROOT, 'bin/tagssh.mjs'), env: { PATH: '', TAGSSH_HOME: home } }).tagsshCommand, [
      process.execPath,
      realpathSync(join(ROOT, 'bin/tagssh.mjs')),
    ]);
  });

  it('in the app: the executable tagssh found on PATH, by real path, as one word that runs', () => {
    const real = join(pathOf(join(dir, 'opt/tagssh/bin')), 'tagssh-real');
    writeFileSync(real, '#!/bin/sh\necho "tagssh ran with $*"\n');
    chmodSync(real, 0o755);
    const bin = pathOf(join(dir, 'app-bin'));
    symlinkSync(real, join(bin, 'tagssh'));
    // Earlier PATH entries: a relative one, and a directory with a tagssh that cannot run.
    const empty = pathOf(join(dir, 'empty'));
    writeFileSync(join(empty, 'tagssh'), '#!/bin/sh\n');
    chmodSync(join(empty, 'tagssh'), 0o644);
    mkdirSync(join(dir, 'dirs/tagssh'), { recursive: true });
    const env = asApp(['relative/bin', empty, join(dir, 'dirs'), bin].join(':'));
    assert.deepEqual(env, { tagsshCommand: [real], knownHostsFile });
    const ran = spawnSync(env.tagsshCommand![0]!, ['proxy', 'x'], { encoding: 'utf8', env: { PATH: '' } });
    assert.equal(ran.stdout, 'tagssh ran with proxy x\n');
  });

  it('in the app: a tagssh run by `env node` (npm link) gets the absolute Node from the same PATH', () => {
    const pkg = pathOf(join(dir, 'pkg/bin'));
    const script = join(pkg, 'tagssh.mjs');
    writeFileSync(script, '#!/usr/bin/env node\nconsole.log("node ran " + process.argv.slice(2).join(" "));\n');
    chmodSync(script, 0o755);
    const bin = pathOf(join(dir, 'linked-bin'));
    symlinkSync(script, join(bin, 'tagssh'));
    const nodeDir = pathOf(join(dir, 'node-bin'));
    symlinkSync(process.execPath, join(nodeDir, 'node'));
    const env = asApp(`${bin}:${nodeDir}`);
    assert.deepEqual(env.tagsshCommand, [realpathSync(process.execPath), script]);
    // It runs with no node on ssh's PATH.
    const [cmd, ...args] = env.tagsshCommand!;
    assert.equal(spawnSync(cmd!, [...args, 'proxy'], { encoding: 'utf8', env: { PATH: '' } }).stdout, 'node ran proxy\n');
    // Without a node to pair it with, nothing is offered.
    const alone = asApp(bin);
    assert.equal(alone.tagsshCommand, null);
    assert.match(alone.unavailable ?? '', /needs node, and no node is on PATH/);
  });

  it('in the app with no tagssh on PATH: no command, and why', () => {
    const env = asApp(pathOf(join(dir, 'nothing-here'), join(dir, 'still-nothing')));
    assert.deepEqual(env, { tagsshCommand: null, knownHostsFile, unavailable: 'No tagssh command is installed on PATH.' });
    assert.equal(asApp('').tagsshCommand, null);
  });

  it('as a CLI whose Node cannot run: no command, and why', () => {
    const env = sshConfigEnv({ script: join(ROOT, 'bin/tagssh.mjs'), execPath: join(dir, 'no-such-node'), env: { PATH: '', TAGSSH_HOME: home } });
    assert.equal(env.tagsshCommand, null);
    assert.match(env.unavailable ?? '', /no-such-node is not executable/);
  });
});
