import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance } from '../../../lab/seed.js';
import { makeKey, type KeyPair } from '../../../lab/sshd.js';
import { runTagssh, type Run } from '../../../lab/run.js';
import { jsonSettingsStore } from '../../../../src/node/store/settings.js';
import { defaultSettings, type Settings } from '../../../../src/common/model/settings.js';

// The login a Tera Term user sets is the login used, from the real `tagssh` against moto and a
// real sshd: Settings' default user beats the AMI's guess (an Ubuntu image here, while the lab's
// sshd only knows its own user) and `-v` says which rule chose it; the CLI's exports pick the same
// user, keep a Japanese Name as the alias and the file name, align the alias table by East Asian
// width and write Settings' key file; a PuTTY key logs in; a wrong key is named as refused.

let lab: CliLab;
let stranger: KeyPair;
const UBUNTU_AMI = 'ami-1e749f67';

const env = () => ({ PATH: process.env.PATH ?? '', HOME: lab.home, ...lab.moto.env, TAGSSH_HOME: join(lab.home, 'tagssh'), SSH_AUTH_SOCK: '' });
const tagssh = (...args: string[]): Promise<Run> => runTagssh(args, env());
const settingsFile = () => join(lab.home, 'tagssh', 'config', 'settings.json');
const setSettings = (s: Partial<Settings>) => jsonSettingsStore(settingsFile()).set({ ...defaultSettings(), ...s });

before(async () => {
  lab = await startCliLab({ prefix: 'tagssh-cli-login-', keyName: 'team', sshd: { address: '127.0.0.2' } });
  stranger = makeKey(join(lab.home, 'keys'), 'ed25519', { name: 'id_stranger' });
  const ec2 = lab.moto.sdk();
  // An Ubuntu image moto ships (ubuntu/images/hvm-ssd/ubuntu-trusty-…): with no user chosen, TagSSH guesses "ubuntu" from it.
  const port = String(lab.host.port);
  await seedInstance(ec2, { name: '踏み台', eip: '127.0.0.2', keyName: 'team', imageId: UBUNTU_AMI, tags: { 'tagssh:port': port } });
  await seedInstance(ec2, { name: 'web-1', eip: '127.0.0.2', keyName: 'team', tags: { 'tagssh:port': port, 'tagssh:user': lab.host.user } });
});

after(async () => {
  await lab?.stop();
});

describe('the login user the person set is the one used', () => {
  it("Settings' default user beats the AMI's guess, and -v says which rule chose it", async () => {
    setSettings({ defaultUser: lab.host.user });
    const r = await tagssh('ssh', '踏み台', '-v', '--accept-new', '--', 'id', '-un');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${lab.host.user}\n`);
    assert.match(r.stderr, new RegExp(`^tagssh: logging in as ${lab.host.user} \\(Settings' default login user\\)$`, 'm'));
    // The shipped CLI bundles ssh2 and requires its compiled addon by package path: -v says the addon encrypts.
    assert.match(r.stderr, /^tagssh: cipher aes128-gcm@openssh\.com \(ssh2's compiled addon\)$/m);
  });

  it("without a Settings user the AMI's user is tried, the error says so and does not send the person back to it", async () => {
    setSettings({});
    const r = await tagssh('ssh', '踏み台', '-v', '--', 'true');
    assert.equal(r.code, 23, r.stderr);
    assert.match(r.stderr, /^tagssh: logging in as ubuntu \(guessed from the AMI\)$/m);
    assert.match(r.stderr, /did not accept the key \S+team\.pem as "ubuntu"/);
    assert.match(
      r.stderr,
      /"ubuntu" was guessed from the AMI; if another user logs in there, name it with --user, the tagssh:user tag, Settings' default login user/,
    );
    // The guessed user is the likelier culprit on a first connect: the hint leads with it, the key comes after.
    const hint = r.stderr.slice(r.stderr.indexOf('→'));
    assert.ok(hint.indexOf('guessed from the AMI') >= 0 && hint.indexOf('guessed from the AMI') < hint.indexOf('authorized_keys'), hint);
  });

  it("Settings' user after a refusal: the hint names the other places, not Settings again", async () => {
    setSettings({ defaultUser: 'nobody' });
    const r = await tagssh('ssh', '踏み台', '--', 'true');
    assert.equal(r.code, 23, r.stderr);
    assert.match(
      r.stderr,
      /"nobody" comes from Settings' default login user; if another user logs in there, name it with --user, or the tagssh:user tag, or the app's Connect as…/,
    );
  });

  it('the instance\'s own "Connect as…" (saved by the app) beats Settings and the tag', async () => {
    const list = JSON.parse((await tagssh('list', '--json')).stdout) as Array<{ id: string; name: string }>;
    const id = list.find((i) => i.name === '踏み台')!.id;
    setSettings({ defaultUser: 'nobody', connectAs: { [id]: { user: lab.host.user, identityFile: lab.key.privatePath } } });
    const r = await tagssh('ssh', '踏み台', '-v', '--', 'echo', 'own-choice');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /logging in as \S+ \(this instance's Connect as… in the app\)/);
  });
});

describe('keys', () => {
  it('a PuTTY .ppk (v3, made by puttygen) logs in as given with --identity', async () => {
    setSettings({});
    const ppk = join(lab.home, 'keys', 'team.ppk');
    execFileSync('puttygen', [lab.key.privatePath, '-O', 'private', '-o', ppk]);
    assert.match(readFileSync(ppk, 'utf8'), /^PuTTY-User-Key-File-3: ssh-ed25519/);
    const r = await tagssh('ssh', 'web-1', '--accept-new', '--identity', ppk, '--', 'echo', 'ppk-cli');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'ppk-cli\n');
  });

  it('a wrong key is named as refused by the server, never as a missing EC2 Instance Connect', async () => {
    const r = await tagssh('ssh', 'web-1', '--identity', stranger.privatePath, '--', 'true');
    assert.equal(r.code, 23, r.stderr);
    assert.match(r.stderr, new RegExp(`^tagssh: web-1 \\(127\\.0\\.0\\.2:\\d+\\) did not accept the key ${stranger.privatePath} as "${lab.host.user}"`));
    assert.doesNotMatch(r.stderr, /ec2-instance-connect|AMI may lack/);
  });
});

describe('agent forwarding', () => {
  it('-A forwards the local ssh-agent to the instance (ssh -A); without it the instance sees none', async () => {
    const { startSshAgent } = await import('../../../lab/sshAgent.js');
    const agent = await startSshAgent();
    try {
      agent.add(lab.key.privatePath);
      const withAgent = { ...env(), SSH_AUTH_SOCK: agent.socket };
      const fwd = await runTagssh(['ssh', 'web-1', '-A', '--accept-new', '--', 'ssh-add', '-L'], withAgent);
      assert.equal(fwd.code, 0, fwd.stderr);
      assert.ok(fwd.stdout.includes(lab.key.publicKey.split(' ')[1]!), fwd.stdout);
      const plain = await runTagssh(['ssh', 'web-1', '--', 'ssh-add', '-L'], withAgent);
      assert.notEqual(plain.code, 0, 'no agent reaches the instance without -A');
    } finally {
      agent.stop();
    }
  });
});

describe('exports pick the same user as tagssh ssh, and keep Japanese Names', () => {
  it('tagssh export teraterm: 踏み台.ttl with /user= from Settings (not the AMI guess)', async () => {
    setSettings({ defaultUser: 'root' });
    const out = join(lab.home, 'macros');
    const r = await tagssh('export', 'teraterm', '踏み台', 'web-1', '--out', out);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readdirSync(out).sort(), ['tagssh-menu.ttl', 'web-1.ttl', '踏み台.ttl']);
    assert.match(readFileSync(join(out, '踏み台.ttl'), 'utf8'), /\/user=root'/);
    setSettings({});
    const guessed = join(lab.home, 'macros-guessed');
    assert.equal((await tagssh('export', 'teraterm', '踏み台', '--out', guessed)).code, 0);
    assert.match(readFileSync(join(guessed, '踏み台.ttl'), 'utf8'), /\/user=ubuntu'/);
  });

  it("tagssh export ssh-config: Settings' key file, a Japanese alias ssh finds, an aligned alias table", async () => {
    setSettings({ identityFile: '~/.ssh/team.pem', defaultUser: lab.host.user });
    const file = join(lab.home, 'ssh_config');
    writeFileSync(file, '');
    const r = await tagssh('export', 'ssh-config', '踏み台', 'web-1', '--file', file);
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^Host 踏み台\n {2}HostName i-[0-9a-f]+\n {2}User root\n {2}Port \d+\n {2}IdentityFile ~\/\.ssh\/team\.pem$/m);
    // The alias table: both arrows in one column although 踏み台 is three characters and six columns wide.
    const rows = r.stderr.split('\n').filter((l) => l.includes('→') && l.startsWith('  "'));
    assert.equal(rows.length, 2, r.stderr);
    const col = (l: string) => {
      const before = l.slice(0, l.indexOf('→'));
      return [...before].reduce((w, ch) => w + (/[\u3000-\u9fff\uff00-\uffef]/.test(ch) ? 2 : 1), 0);
    };
    assert.equal(col(rows[0]!), col(rows[1]!), rows.join('\n'));
    // OpenSSH itself finds the Japanese alias.
    const g = execFileSync('ssh', ['-G', '-F', file, '踏み台'], { encoding: 'utf8' });
    assert.match(g, /^hostkeyalias i-[0-9a-f]+$/m);
    assert.match(g, /^identityfile ~\/\.ssh\/team\.pem$/m);
  });
});

describe('messages', () => {
  it('a Name typed almost right: did you mean web-1? (case, no dash, a trailing space, full-width)', async () => {
    for (const typed of ['Web-1', 'web1', 'web-1 ', 'ｗｅｂ－１']) {
      const r = await tagssh('resolve', typed);
      assert.equal(r.code, 3, `${typed}: ${r.stderr}`);
      assert.match(r.stderr, /Did you mean "web-1"\?/, typed);
    }
    const none = await tagssh('resolve', 'zzz-nothing');
    assert.doesNotMatch(none.stderr, /Did you mean/);
  });

  it('--region tokyo suggests ap-northeast-1', async () => {
    const r = await tagssh('list', '--region', 'tokyo');
    assert.equal(r.code, 9, r.stderr);
    assert.match(r.stderr, /"tokyo" is not an AWS region\. Did you mean ap-northeast-1\?/);
    assert.match(r.stderr, /--region ap-northeast-1/);
  });

  it('--debug exists: accepted by every command, and shows where an error came from', async () => {
    const r = await tagssh('resolve', 'zzz-nothing', '--debug');
    assert.equal(r.code, 3, r.stderr);
    assert.doesNotMatch(r.stderr, /unknown option/);
    assert.match(r.stderr, /^\s+at /m, 'the stack');
  });

  it('tagssh ssh web-1 uname -a: the remote command goes after --', async () => {
    const r = await tagssh('ssh', 'web-1', 'uname', '-a');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /unknown option '-a': a remote command's options go after `--`: tagssh ssh web-1 -- uname -a/);
    const ok = await tagssh('ssh', 'web-1', '--accept-new', '--', 'uname', '-s');
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('tagssh bench dd --help: how to run dd and its parameters, not the generic help', async () => {
    const r = await tagssh('bench', 'dd', '--help');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: tagssh bench dd NAME…/);
    assert.match(r.stdout, /^ {2}bs {2,}"1M"/m);
  });

  it('an unknown command with --help is an error, not the general help', async () => {
    const r = await tagssh('lsit', '--help');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^tagssh: unknown command 'lsit'\. Did you mean 'list'\?/);
    assert.doesNotMatch(r.stdout, /Usage/);
  });

  it('results --compare takes unique id prefixes', async () => {
    const dd = readFileSync(join(import.meta.dirname, '../../../fixtures/bench/dd/dd-coreutils-9.1.captured.txt'), 'utf8');
    const raw = join(lab.home, 'dd.txt');
    writeFileSync(raw, dd);
    mkdirSync(join(lab.home, 'tagssh'), { recursive: true });
    const ids: string[] = [];
    for (let n = 0; n < 2; n++) {
      const saved = await tagssh('bench', 'parse', 'dd', raw, '--save', '--json');
      assert.equal(saved.code, 0, saved.stderr);
      ids.push((JSON.parse(saved.stdout) as { id: string }).id);
    }
    const full = await tagssh('results', '--compare', ids[0]!, ids[1]!, '--format', 'json');
    // Ids are <time>-<random>: two saved in one second share the time, so a unique prefix reaches into the random part.
    const unique = (id: string, other: string) => id.slice(0, [...id].findIndex((c, i) => c !== other[i]) + 1);
    const [a, b] = [unique(ids[0]!, ids[1]!), unique(ids[1]!, ids[0]!)];
    const short = await tagssh('results', '--compare', a, b, '--format', 'json', '--baseline', b);
    assert.equal(short.code, 0, short.stderr);
    assert.deepEqual(JSON.parse(short.stdout).columns, JSON.parse(full.stdout).columns);
    const shared = await tagssh('results', '--compare', ids[0]!.slice(0, 8), ids[1]!);
    assert.equal(shared.code, 4, shared.stderr);
    assert.match(shared.stderr, /starts 2 result ids/);
    const tooShort = await tagssh('results', '--compare', ids[0]!.slice(0, 2), ids[1]!);
    assert.equal(tooShort.code, 2);
    assert.match(tooShort.stderr, /at least the first 4 characters/);
  });
});
