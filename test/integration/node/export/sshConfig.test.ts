import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeAddressesCommand, DisassociateAddressCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { startSshd, cleanupSshd, makeKey, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { seedInstance, attachEip } from '../../../lab/seed.js';
import { BLOCK_BEGIN, BLOCK_END } from '../../../../src/common/export/sshConfig.js';

// The exported OpenSSH config, end to end: real `tagssh export ssh-config` against moto, real
// `ssh -G`, then ssh / scp / rsync through `tagssh proxy` to a local sshd whose address comes from
// an Elastic IP — and still after the EIP moves to another address (same host keys there), with
// known_hosts keyed by the instance id so nothing has to be re-trusted.

const ROOT = join(import.meta.dirname, '../../../..');
const TAGSSH = join(ROOT, 'bin/tagssh.mjs');
const NAME = `web "1" it's $(whoami) & %p`; // needs --name-b64 in the ProxyCommand

describe('tagssh export ssh-config + tagssh proxy with OpenSSH', () => {
  let moto: Moto;
  let host1: SshdHost;
  let host2: SshdHost | undefined;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let clientKey: KeyPair;
  let instanceId: string;
  let cfg: string;
  const userPart = '# my own settings\nHost old-box\n  HostName 192.0.2.1\n  User alice\n\nHost *\n  ServerAliveInterval 30\n';

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'tagssh-export-'));
    clientKey = makeKey(join(work, 'client'), 'ed25519');
    moto = await startMoto();
    host1 = await startSshd({ address: '127.0.0.2', authorizedKeys: [clientKey.publicKey] });
    const ec2 = moto.sdk();
    const seeded = await seedInstance(ec2, { name: NAME, eip: '127.0.0.2', tags: { 'tagssh:port': String(host1.port) } });
    instanceId = seeded.id;
    // `tagssh` on PATH, as the exported ProxyCommand expects.
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'tagssh'), `#!/bin/sh\nexec "${process.execPath}" "${TAGSSH}" "$@"\n`);
    chmodSync(join(bin, 'tagssh'), 0o755);
    env = { ...process.env, ...moto.env, TAGSSH_HOME: join(work, 'home'), PATH: `${bin}:${process.env.PATH}` };
    cfg = join(work, 'ssh_config');
    writeFileSync(cfg, userPart);
  });

  after(async () => {
    await host1?.stop();
    if (host1) cleanupSshd(host1);
    await host2?.stop();
    if (host2) cleanupSshd(host2);
    await moto?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const tagssh = (...args: string[]) => spawnSync(process.execPath, [TAGSSH, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  const sshOpts = () => ['-F', cfg, '-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${join(work, 'known_hosts')}`, '-o', 'StrictHostKeyChecking=accept-new', '-o', 'IdentityAgent=none', '-o', 'ConnectTimeout=20'];
  const ssh = (alias: string, ...cmd: string[]) => spawnSync('ssh', [...sshOpts(), alias, ...cmd], { env, encoding: 'utf8', timeout: 60_000 });
  const outside = (text: string) => text.slice(0, text.indexOf(BLOCK_BEGIN)) + text.slice(text.indexOf(BLOCK_END) + BLOCK_END.length);

  let alias = '';

  it('writes the managed block and leaves the rest of the file byte-identical, twice', () => {
    const r = tagssh('export', 'ssh-config', NAME, '--file', cfg, '--user', host1.user, '--identity', clientKey.privatePath);
    assert.equal(r.status, 0, r.stderr);
    const first = readFileSync(cfg, 'utf8');
    assert.ok(first.endsWith(userPart), 'user content kept after the block');
    assert.equal(outside(first), '\n\n' + userPart);
    assert.equal(readFileSync(`${cfg}.tagssh-backup`, 'utf8'), userPart, 'backup holds the previous file');
    const m = /^Host (\S+)$/m.exec(first);
    assert.ok(m);
    alias = m[1]!;
    assert.match(alias, /^[a-z0-9._-]+$/);
    assert.match(r.stderr, new RegExp(`${alias}\\s+←`));

    // Rewrite twice (the second time with a different user): outside bytes never change.
    assert.equal(tagssh('export', 'ssh-config', NAME, '--file', cfg, '--user', 'someone', '--identity', clientKey.privatePath).status, 0);
    const second = readFileSync(cfg, 'utf8');
    assert.match(second, /User someone/);
    assert.equal(outside(second), outside(first));
    assert.equal(tagssh('export', 'ssh-config', NAME, '--file', cfg, '--user', host1.user, '--identity', clientKey.privatePath).status, 0);
    const third = readFileSync(cfg, 'utf8');
    assert.equal(outside(third), outside(first));
    assert.equal(third.replace(/^# Exported at .*$/m, ''), first.replace(/^# Exported at .*$/m, ''));
  });

  it('--dry-run prints the block and changes nothing', () => {
    const before = readFileSync(cfg, 'utf8');
    const r = tagssh('export', 'ssh-config', NAME, '--file', cfg, '--user', 'nobody', '--dry-run');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^# BEGIN tagssh/);
    assert.match(r.stdout, /User nobody/);
    assert.equal(readFileSync(cfg, 'utf8'), before);
  });

  it('ssh -G reads the expected host name, user, port and host key alias', () => {
    const out = execFileSync('ssh', ['-G', '-F', cfg, alias], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const get = (k: string) => new RegExp(`^${k} (.*)$`, 'm').exec(out)?.[1];
    assert.equal(get('hostname'), instanceId);
    assert.equal(get('user'), host1.user);
    assert.equal(get('port'), String(host1.port));
    assert.equal(get('hostkeyalias'), instanceId);
    assert.match(get('proxycommand') ?? '', /^tagssh proxy --name-b64 [A-Za-z0-9_-]+ --region us-east-1 --port %p$/);
    // The user's own hosts are unaffected.
    const old = execFileSync('ssh', ['-G', '-F', cfg, 'old-box'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.match(old, /^hostname 192\.0\.2\.1$/m);
    assert.match(old, /^user alice$/m);
  });

  it('ssh, scp and rsync work through tagssh proxy', () => {
    const r = ssh(alias, 'echo', 'hello-from', '$TAGSSH_TEST_HOST');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'hello-from 127.0.0.2');
    const known = readFileSync(join(work, 'known_hosts'), 'utf8');
    assert.ok(known.startsWith(`${instanceId} `), `known_hosts keyed by instance id: ${known}`);

    const src = join(work, 'payload.txt');
    writeFileSync(src, 'payload 1\n');
    const remote = join(work, 'remote-scp.txt');
    const scp = spawnSync('scp', [...sshOpts(), src, `${alias}:${remote}`], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(scp.status, 0, scp.stderr);
    assert.equal(readFileSync(remote, 'utf8'), 'payload 1\n');

    const rremote = join(work, 'remote-rsync.txt');
    const rs = spawnSync('rsync', ['-e', ['ssh', ...sshOpts()].join(' '), src, `${alias}:${rremote}`], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(rs.status, 0, rs.stderr);
    assert.equal(readFileSync(rremote, 'utf8'), 'payload 1\n');
  });

  it('keeps working after the Elastic IP moves, without touching known_hosts', async () => {
    const knownBefore = readFileSync(join(work, 'known_hosts'), 'utf8');
    // The "same machine" now answers on 127.0.0.3: a second sshd with the SAME host keys.
    host2 = await startSshd({ address: '127.0.0.3', port: host1.port, authorizedKeys: [clientKey.publicKey] });
    await host2.stop();
    for (const k of host1.hostKeys) {
      const name = k.privatePath.split('/').pop()!;
      copyFileSync(k.privatePath, join(host2.dir, 'hostkeys', name));
      copyFileSync(k.publicPath, join(host2.dir, 'hostkeys', `${name}.pub`));
    }
    await host2.start();
    await host1.stop();
    const ec2 = moto.sdk();
    const addrs = await ec2.send(new DescribeAddressesCommand({ PublicIps: ['127.0.0.2'] }));
    await ec2.send(new DisassociateAddressCommand({ AssociationId: addrs.Addresses![0]!.AssociationId! }));
    await attachEip(ec2, instanceId, '127.0.0.3');

    const r = ssh(alias, 'echo', '$TAGSSH_TEST_HOST');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), '127.0.0.3');
    const src = join(work, 'payload2.txt');
    writeFileSync(src, 'payload 2\n');
    const rs = spawnSync('rsync', ['-e', ['ssh', ...sshOpts()].join(' '), src, `${alias}:${join(work, 'remote-rsync2.txt')}`], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(rs.status, 0, rs.stderr);
    const scp = spawnSync('scp', [...sshOpts(), src, `${alias}:${join(work, 'remote-scp2.txt')}`], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(scp.status, 0, scp.stderr);
    assert.equal(readFileSync(join(work, 'known_hosts'), 'utf8'), knownBefore, 'no new known_hosts entry after the IP change');
  });

  it('refuses a different machine behind the moved address (host key pinned to the instance id)', async () => {
    await host2!.rotateHostKeys();
    const r = ssh(alias, 'true');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/);
  });

  it('tagssh proxy reports failures on stderr only, with a clean exit code', () => {
    const r = spawnSync(process.execPath, [TAGSSH, 'proxy', 'no-such-name'], { env, encoding: 'utf8', input: '' , timeout: 30_000 });
    assert.equal(r.status, 3);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /no-such-name/);
  });
});
