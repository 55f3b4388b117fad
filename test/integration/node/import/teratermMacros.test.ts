import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';

// `tagssh import teraterm` on single macros, real CLI against moto: a password counted once per
// place it is written, however many paths reach it; a host from a macro parameter, read without
// the batch file that passes it, is a host known only when the macro runs.

const TAGSSH = join(import.meta.dirname, '../../../../bin/tagssh.mjs');
const REGION = 'ap-northeast-1';

// A dialog makes two paths (two users) to one connect line, with one password written once.
const BRANCHES = [
  "password = 'Passw0rd!'",
  "yesnobox 'log in as admin?' 'login'",
  'if result then',
  "  user = 'admin'",
  'else',
  "  user = 'ops'",
  'endif',
  "msg = '127.0.0.74:22 /ssh /auth=password /passwd='",
  'strconcat msg password',
  "strconcat msg ' /user='",
  'strconcat msg user',
  'connect msg',
].join('\r\n');

const FROM_PARAM = ['CMDLINE = param2', "strconcat CMDLINE ':22 /ssh /2 /auth=publickey /user=ec2-user'", 'connect CMDLINE'].join('\r\n');

describe('tagssh import teraterm: single macros', () => {
  let moto: Moto;
  let work: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'tagssh-import-ttl-'));
    moto = await startMoto();
    env = { ...process.env, ...moto.env, TAGSSH_HOME: join(work, 'home'), HOME: join(work, 'home') };
    writeFileSync(join(work, 'branches.ttl'), BRANCHES);
    writeFileSync(join(work, 'from-param.ttl'), FROM_PARAM);
  });
  after(async () => {
    await moto?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  const tagssh = (...args: string[]) => spawnSync(process.execPath, [TAGSSH, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  const dryRun = (file: string, json = false) => tagssh('import', 'teraterm', join(work, file), '--region', REGION, '--dry-run', ...(json ? ['--json'] : []));

  it('counts one password once, though two paths reach its connect line', () => {
    const r = dryRun('branches.ttl');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.match(/^branches\.ttl:12 .*password found, left out$/gm)?.length, 2, r.stdout);
    assert.match(r.stdout, /^Passwords were found in 1 place\(s\) and left out/m);
    const { plan } = JSON.parse(dryRun('branches.ttl', true).stdout) as { plan: { passwordsFound: number; notes: { code: string }[] } };
    assert.equal(plan.passwordsFound, 1);
    assert.equal(plan.notes.filter((n) => n.code === 'password-found').length, 1);
  });

  it('a host from param2, read on its own, is known only when the macro runs', () => {
    const r = dryRun('from-param.ttl');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^from-param\.ttl:3 .*the host is only known when it runs \(param2\)$/m);
    assert.doesNotMatch(r.stdout, /not an EC2 address/);
  });
});
