import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeAddressesCommand, DisassociateAddressCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { startSshd, cleanupSshd, makeKey, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { seedInstance, attachEip } from '../../../lab/seed.js';
import { cloudInitConsole } from '../../../lab/cloudInitConsole.js';
import { BLOCK_BEGIN, BLOCK_END } from '../../../../src/common/export/sshConfig.js';

// The exported OpenSSH config, end to end: real `tagssh export ssh-config` against moto, real
// `ssh -G`, then ssh / scp / rsync through `tagssh proxy` to a local sshd whose address comes from
// an Elastic IP — and still after the EIP moves to another address (same host keys there). The
// ProxyCommand runs TagSSH by absolute path (tagssh is NOT on PATH here), and OpenSSH checks host
// keys against TagSSH's own known_hosts, keyed by the instance id: the key `tagssh ssh` verified
// is the key ssh checks, and a changed key is refused by both.

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
  let twins: string[];
  let knownHosts: string;
  let front: ChildProcess;
  let host3: SshdHost;
  let vouchedId: string;
  const userPart = '# my own settings\nHost old-box\n  HostName 192.0.2.1\n  User alice\n\nHost *\n  ServerAliveInterval 30\n';

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'tagssh-export-'));
    clientKey = makeKey(join(work, 'client'), 'ed25519');
    moto = await startMoto();
    host1 = await startSshd({ address: '127.0.0.2', authorizedKeys: [clientKey.publicKey] });
    const ec2 = moto.sdk();
    const seeded = await seedInstance(ec2, { name: NAME, eip: '127.0.0.2', tags: { 'tagssh:port': String(host1.port) } });
    instanceId = seeded.id;
    twins = (await seedInstance(ec2, { name: 'twin', count: 2 })).ids;
    // An instance whose console output (cloud-init's fingerprint block) vouches for its sshd.
    host3 = await startSshd({ address: '127.0.0.7', authorizedKeys: [clientKey.publicKey] });
    vouchedId = (await seedInstance(ec2, { name: 'vouched', eip: '127.0.0.7', tags: { 'tagssh:port': String(host3.port) } })).id;
    const vouching = Buffer.from(cloudInitConsole(host3.hostKeys.map((k) => k.publicPath))).toString('base64');
    front = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/support/consoleFront.ts'), moto.endpoint, vouchedId, vouching], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const frontEndpoint = await new Promise<string>((resolve, reject) => {
      front.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
      front.once('exit', (code) => reject(new Error(`console front exited ${code}`)));
    });
    // PATH without any tagssh: the exported config must not need it.
    const path = (process.env.PATH ?? '').split(':').filter((d) => d && !existsSync(join(d, 'tagssh')));
    env = {
      ...process.env,
      ...moto.env,
      AWS_ENDPOINT_URL_EC2: frontEndpoint,
      TAGSSH_HOME: join(work, 'home'),
      HOME: join(work, 'home'),
      PATH: path.join(':'),
      SSH_AUTH_SOCK: '',
    };
    knownHosts = join(work, 'home', 'config', 'known_hosts');
    cfg = join(work, 'ssh_config');
    writeFileSync(cfg, userPart);
  });

  after(async () => {
    await host1?.stop();
    if (host1) cleanupSshd(host1);
    await host2?.stop();
    if (host2) cleanupSshd(host2);
    await host3?.stop();
    if (host3) cleanupSshd(host3);
    front?.kill('SIGTERM');
    await moto?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const tagssh = (...args: string[]) => spawnSync(process.execPath, [TAGSSH, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  // Nothing about host keys on the command line: the exported block decides.
  const sshOpts = () => ['-F', cfg, '-o', 'BatchMode=yes', '-o', 'IdentityAgent=none', '-o', 'ConnectTimeout=20'];
  const ssh = (alias: string, ...cmd: string[]) => spawnSync('ssh', [...sshOpts(), alias, ...cmd], { env, encoding: 'utf8', timeout: 60_000 });
  const outside = (text: string) => text.slice(0, text.indexOf(BLOCK_BEGIN)) + text.slice(text.indexOf(BLOCK_END) + BLOCK_END.length);

  let alias = '';

  it('writes the managed block and leaves the rest of the file byte-identical, twice', () => {
    assert.notEqual(spawnSync('sh', ['-c', 'command -v tagssh'], { env }).status, 0, 'tagssh is not on PATH');
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
    assert.ok(r.stderr.includes(`Name → Host alias:\n  ${JSON.stringify(NAME)}  →  ${alias}  (${instanceId})\n`), r.stderr);

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

  it('prints the Name → alias mapping, with id suffixes for shared Names', () => {
    const r = tagssh('export', 'ssh-config', 'twin', '--file', join(work, 'twins_config'), '--user', host1.user);
    assert.equal(r.status, 0, r.stderr);
    for (const id of twins) assert.ok(r.stderr.includes(`  "twin"  →  twin-${id.slice(-8)}  (${id}, name shared or taken: id suffix added)\n`), r.stderr);
    assert.match(r.stderr, /Connect with: ssh -F \S+ twin-[0-9a-f]{8} /);
  });

  it('--dry-run prints the block and changes nothing', () => {
    const before = readFileSync(cfg, 'utf8');
    const r = tagssh('export', 'ssh-config', NAME, '--file', cfg, '--user', 'nobody', '--dry-run');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^# BEGIN tagssh/);
    assert.match(r.stdout, /User nobody/);
    assert.equal(readFileSync(cfg, 'utf8'), before);
  });

  it('ssh -G reads the expected host name, user, port, host key alias and known_hosts', () => {
    const out = execFileSync('ssh', ['-G', '-F', cfg, alias], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const get = (k: string) => new RegExp(`^${k} (.*)$`, 'm').exec(out)?.[1];
    assert.equal(get('hostname'), instanceId);
    assert.equal(get('user'), host1.user);
    assert.equal(get('port'), String(host1.port));
    assert.equal(get('hostkeyalias'), instanceId);
    assert.equal(get('userknownhostsfile'), knownHosts);
    assert.equal(get('stricthostkeychecking'), 'true');
    // The running Node and the real path of this TagSSH, absolute.
    assert.equal(
      get('proxycommand'),
      `${process.execPath} ${realpathSync(TAGSSH)} proxy --name-b64 ${Buffer.from(NAME).toString('base64url')} --region us-east-1 --port %p`,
    );
    // The user's own hosts are unaffected.
    const old = execFileSync('ssh', ['-G', '-F', cfg, 'old-box'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.match(old, /^hostname 192\.0\.2\.1$/m);
    assert.match(old, /^user alice$/m);
  });

  it('OpenSSH refuses a host TagSSH has not verified yet (strict checking, nothing learnt on its own)', () => {
    const r = ssh(alias, 'true');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /Host key verification failed/);
    // tagssh proxy looked first, found no console record, and says what to do.
    const fp = host1.hostKeys.find((k) => k.type === 'ed25519')!.fingerprint;
    assert.ok(r.stderr.includes(`run \`tagssh ssh ${instanceId} --accept-new=${fp}\` once`), r.stderr);
    assert.equal(existsSync(knownHosts) && readFileSync(knownHosts, 'utf8').includes(instanceId), false, 'nothing was trusted');
  });

  it("first contact from OpenSSH itself: a key the instance's console output vouches for is trusted, and ssh accepts it", () => {
    const cfg3 = join(work, 'vouched_config');
    assert.equal(tagssh('export', 'ssh-config', 'vouched', '--file', cfg3, '--user', host3.user, '--identity', clientKey.privatePath).status, 0);
    const r = spawnSync('ssh', ['-F', cfg3, '-o', 'BatchMode=yes', '-o', 'IdentityAgent=none', 'vouched', 'echo', 'first-contact-ok'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'first-contact-ok');
    assert.match(r.stderr, /matches its console output; trusted/);
    assert.match(readFileSync(knownHosts, 'utf8'), new RegExp(`^${vouchedId} ssh-ed25519 \\S+ tagssh source=console `, 'm'));
  });

  it('after `tagssh ssh` verified the key, ssh, scp and rsync work through tagssh proxy with that key', () => {
    const first = tagssh('ssh', NAME, '--user', host1.user, '--identity', clientKey.privatePath, '--accept-new', '--', 'echo', 'verified');
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout.trim(), 'verified');
    const known = readFileSync(knownHosts, 'utf8');
    const ed25519 = host1.hostKeys.find((k) => k.type === 'ed25519')!;
    assert.ok(known.includes(`\n${instanceId} ssh-ed25519 ${ed25519.publicKey.split(' ')[1]} tagssh `), `known_hosts keyed by instance id: ${known}`);

    const r = ssh(alias, 'echo', 'hello-from', '$TAGSSH_TEST_HOST');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'hello-from 127.0.0.2');

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
    const knownBefore = readFileSync(knownHosts, 'utf8');
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
    const rs = spawnSync('rsync', ['-e', ['ssh', ...sshOpts()].join(' '), src, `${alias}:${join(work, 'remote-rsync2.txt')}`], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(rs.status, 0, rs.stderr);
    const scp = spawnSync('scp', [...sshOpts(), src, `${alias}:${join(work, 'remote-scp2.txt')}`], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(scp.status, 0, scp.stderr);
    assert.equal(readFileSync(knownHosts, 'utf8'), knownBefore, 'no new known_hosts entry after the IP change');
  });

  it('refuses a different machine behind the moved address, in ssh and in tagssh alike', async () => {
    await host2!.rotateHostKeys();
    const r = ssh(alias, 'true');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED/);
    const t = tagssh('ssh', NAME, '--user', host1.user, '--identity', clientKey.privatePath, '--accept-new', '--', 'true');
    assert.notEqual(t.status, 0);
    assert.match(t.stderr, /has CHANGED/);
  });

  it('carries over keys OpenSSH already trusted (configs from earlier versions), and warns about a different one', () => {
    // The user's own ~/.ssh/known_hosts, hashed as Debian and Ubuntu write it.
    const home = join(work, 'user-home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const userKnown = join(home, '.ssh', 'known_hosts');
    const oldKey = makeKey(join(work, 'old-host-key'), 'ed25519').publicKey.split(' ').slice(0, 2).join(' ');
    const otherKey = makeKey(join(work, 'other-host-key'), 'ed25519').publicKey.split(' ').slice(0, 2).join(' ');
    writeFileSync(userKnown, `${twins[0]} ${oldKey}\n${instanceId} ${otherKey}\n`);
    execFileSync('ssh-keygen', ['-H', '-f', userKnown], { stdio: 'ignore' });
    const trustedBefore = readFileSync(knownHosts, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith(`${instanceId} `));
    const r = spawnSync(process.execPath, [TAGSSH, 'export', 'ssh-config', 'twin', NAME, '--file', join(work, 'carry_config'), '--user', host1.user], {
      env: { ...env, HOME: home },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stderr.includes(`Carried over the host keys OpenSSH already trusted for ${twins[0]} from ${userKnown}.`), r.stderr);
    assert.ok(r.stderr.includes(`Warning: ${userKnown} holds a different host key for ${instanceId} than TagSSH trusts`), r.stderr);
    const after = readFileSync(knownHosts, 'utf8');
    assert.ok(after.includes(`\n${twins[0]} ${oldKey} tagssh `), after);
    assert.deepEqual(
      after.split('\n').filter((l) => l.startsWith(`${instanceId} `)),
      trustedBefore,
      "TagSSH's key for the instance is kept",
    );
  });

  it('tagssh proxy reports failures on stderr only, with a clean exit code', () => {
    const r = spawnSync(process.execPath, [TAGSSH, 'proxy', 'no-such-name'], { env, encoding: 'utf8', input: '', timeout: 30_000 });
    assert.equal(r.status, 3);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /no-such-name/);
  });
});
