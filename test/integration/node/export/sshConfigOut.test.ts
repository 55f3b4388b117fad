import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { ERROR_CODES } from '../../../../src/common/errors.js';

// `export teraterm` names its destination --out; `export ssh-config` takes the same word as
// --file, so either command works with what the other taught. Real CLI against moto.

const TAGSSH = join(import.meta.dirname, '../../../../bin/tagssh.mjs');

describe('tagssh export ssh-config --out', () => {
  let moto: Moto;
  let work: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'tagssh-sshcfg-out-'));
    moto = await startMoto();
    await seedInstance(moto.sdk(), { name: 'web', eip: '127.0.0.2' });
    env = { ...process.env, ...moto.env, TAGSSH_HOME: join(work, 'home'), HOME: join(work, 'home') };
  });
  after(async () => {
    await moto?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  const tagssh = (...args: string[]) => spawnSync(process.execPath, [TAGSSH, ...args], { env, encoding: 'utf8', timeout: 30_000 });

  it('writes the file --out names, as --file does', () => {
    const viaOut = join(work, 'out_config');
    const r = tagssh('export', 'ssh-config', 'web', '--out', viaOut, '--user', 'ec2-user');
    assert.equal(r.status, 0, r.stderr);
    assert.match(readFileSync(viaOut, 'utf8'), /^# BEGIN tagssh[\s\S]*^Host web$/m);
    assert.ok(!existsSync(join(work, 'home', '.ssh', 'config')), 'the default config is left alone');
    assert.match(r.stderr, new RegExp(`Connect with: ssh -F ${viaOut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} web`));
    const viaFile = join(work, 'file_config');
    assert.equal(tagssh('export', 'ssh-config', 'web', '--file', viaFile, '--user', 'ec2-user').status, 0);
    const strip = (t: string) => t.replace(/^# Exported at .*$/m, '');
    assert.equal(strip(readFileSync(viaFile, 'utf8')), strip(readFileSync(viaOut, 'utf8')));
  });

  it('says in --help that --out is --file', () => {
    const r = tagssh('export', 'ssh-config', '--help');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /--out <path>\s+the same as --file/);
  });

  it('refuses two different paths, before touching either', () => {
    const a = join(work, 'a_config');
    const b = join(work, 'b_config');
    const r = tagssh('export', 'ssh-config', 'web', '--out', a, '--file', b, '--user', 'ec2-user');
    assert.equal(r.status, ERROR_CODES.INVALID_INPUT, r.stderr);
    assert.match(r.stderr, /--out and --file are the same option/);
    assert.ok(!existsSync(a) && !existsSync(b));
  });
});
