import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { runTagssh } from '../../../lab/run.js';

// A person with an EC2 key pair keeps its private key where AWS's docs put it, ~/.ssh/<KeyName>.pem,
// and `tagssh ssh` logs in with it without being told. The OpenSSH config `tagssh export
// ssh-config` writes must log in the same way: the export names that file as the IdentityFile,
// so `ssh NAME` works with nothing in Settings and no agent (before, it wrote no IdentityFile and
// ssh was refused with "Permission denied (publickey)").

const KEY_NAME = 'team-key';
let lab: CliLab;
let env: NodeJS.ProcessEnv;

before(async () => {
  lab = await startCliLab({ prefix: 'tagssh-export-keypair-', keyName: KEY_NAME, sshd: { address: '127.0.0.9' } });
  await seedInstance(lab.ec2, { name: 'web-1', eip: '127.0.0.9', keyName: KEY_NAME, tags: sshdTags(lab.host) });
  // No tagssh on PATH (the config names it by path), no agent, no settings file.
  const path = (process.env.PATH ?? '').split(':').filter((d) => d && !existsSync(join(d, 'tagssh')));
  env = { PATH: path.join(':'), HOME: lab.home, TAGSSH_HOME: join(lab.home, 'tagssh'), SSH_AUTH_SOCK: '', ...lab.moto.env };
});

after(async () => {
  await lab?.stop();
});

test("the exported OpenSSH config logs in with the key pair's ~/.ssh/<KeyName>.pem, as tagssh ssh does", async () => {
  const first = await runTagssh(['ssh', 'web-1', '--accept-new', '--', 'echo', 'tagssh-ok'], env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout.trim(), 'tagssh-ok');

  const cfg = join(lab.home, 'ssh_config');
  const exported = await runTagssh(['export', 'ssh-config', 'web-1', '--file', cfg], env);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(readFileSync(cfg, 'utf8'), new RegExp(`^  IdentityFile ${join(lab.home, '.ssh', `${KEY_NAME}.pem`)}$`, 'm'));

  const ssh = spawnSync('ssh', ['-F', cfg, '-o', 'BatchMode=yes', '-o', 'IdentityAgent=none', '-o', 'ConnectTimeout=20', 'web-1', 'echo', 'openssh-ok'], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(ssh.status, 0, ssh.stderr);
  assert.equal(ssh.stdout.trim(), 'openssh-ok');
});
