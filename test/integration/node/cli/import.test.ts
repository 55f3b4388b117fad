import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { exitCodeFor } from '../../../../src/common/errors.js';
import type { ImportPlan, ImportResult } from '../../../../src/common/import/contract.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { copyImportFixtures, IMPORT_FIXTURES, IMPORT_REGION, seedImportWorld, type ImportWorld } from '../../../lab/importLab.js';
import { runProcess, runTagssh, TAGSSH_BIN } from '../../../lab/run.js';
import { cleanupSshd, makeKey, startSshd, type SshdHost } from '../../../lab/sshd.js';
import { attachEip, seedInstance } from '../../../lab/seed.js';

// `tagssh import teraterm FILE|DIR` on the folder of real-shaped macros and batch files
// (test/fixtures/import/teraterm: variables, strconcat, include, Japanese comments, Shift_JIS and
// UTF-8 with BOM), against moto in ap-northeast-1: the table, what is written only with --yes,
// host keys from Tera Term's ssh_known_hosts (a conflicting one reported, not imported), wrong
// inputs; the batch file's own aws call run through the real aws CLI finds the same instance;
// and an imported instance connects by Name with the macro's user and key (real sshd).

let moto: Moto;
let world: ImportWorld;
let home: string;

const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  ...moto.env,
  HOME: home,
  TAGSSH_HOME: join(home, 'tagssh'),
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});
const tagssh = (...args: string[]) => runTagssh(args, env());
const settingsFile = () => join(home, 'tagssh', 'config', 'settings.json');
const readConnectAs = () =>
  (JSON.parse(readFileSync(settingsFile(), 'utf8')) as { data: { connectAs: Record<string, Record<string, unknown>> } }).data.connectAs;
/** The table line of a source (file:line and what it found). */
const line = (out: string, source: string, found: string) =>
  out.split('\n').find((l) => l.startsWith(`${source} `) && l.includes(found)) ?? `(no line for ${source} ${found})`;

before(async () => {
  moto = await startMoto();
  world = await seedImportWorld(moto.sdk(IMPORT_REGION));
});

after(async () => {
  await moto?.stop();
});

describe('tagssh import teraterm DIR', () => {
  let dir: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'tagssh-import-home-'));
    dir = copyImportFixtures();
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('--dry-run prints the table of every host found, mapped or not and why, and writes nothing', async () => {
    const r = await tagssh('import', 'teraterm', dir, '--region', IMPORT_REGION, '--dry-run');
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout;
    const id = (n: keyof ImportWorld['ids']) => world.ids[n].id;
    assert.match(
      line(out, 'web-1.ttl:18', '127.0.0.71'),
      new RegExp(`web-1 \\(${id('web-1')}\\)\\s+user ec2-user, port 22, publickey\\s+by Elastic IP; key C:\\\\Users\\\\taro\\\\.ssh\\\\web.pem not found here`),
    );
    assert.match(
      line(out, 'db-primary.ttl:8', '10.61.1.25'),
      new RegExp(`db-primary \\(${id('db-primary')}\\)\\s+user ec2-user, port 22, publickey\\s+by private IP`),
    );
    assert.match(line(out, 'menu.ttl:21', '127.0.0.72'), new RegExp(`app-1 \\(${id('app-1')}\\)\\s+user ubuntu, port 22, agent`));
    assert.match(line(out, 'menu.ttl:21', 'ec2-127-0-0-73.ap-northeast-1.compute.amazonaws.com'), new RegExp(`app-2 \\(${id('app-2')}\\).*by Elastic IP`));
    assert.match(line(out, 'menu.ttl:21', '203.0.113.99'), /—\s+no instance in ap-northeast-1 has this address/);
    assert.match(
      line(out, 'password-login.ttl:15', '127.0.0.74'),
      new RegExp(`legacy \\(${id('legacy')}\\)\\s+user admin, port 22, password\\s+by Elastic IP; password found, left out`),
    );
    assert.match(
      line(out, 'connect-by-name.bat:19', 'Name=batch-web'),
      new RegExp(`batch-web \\(${id('batch-web')}\\)\\s+user ubuntu, port 22, publickey\\s+by Name`),
    );
    assert.match(
      line(out, 'connect-param.ttl:10', 'Name=deploy-target'),
      new RegExp(`deploy-target \\(${id('deploy-target')}\\)\\s+user deploy.*its aws call uses profile deploy`),
    );
    assert.match(line(out, 'jump.sh:14', 'Name=shell-box'), new RegExp(`shell-box \\(${id('shell-box')}\\)\\s+user admin, port 22, publickey`));
    assert.match(line(out, 'jump.sh:14', 'Name=twin'), new RegExp(`several instances match: (${world.twins.ids.join('|')}), (${world.twins.ids.join('|')})`));
    assert.match(line(out, 'telnet-router.ttl:2', '192.0.2.1'), /telnet, not SSH; password found, left out$/);
    assert.match(line(out, 'ssh_config:2', 'web-alias → ec2-127-0-0-71.ap-northeast-1.compute.amazonaws.com'), /same instance as web-1\.ttl:18/);
    assert.match(line(out, 'ssh_config:7', 'github.com'), /not an EC2 address/);
    assert.match(line(out, 'TERATERM.INI:20', '?'), /a serial port, not SSH/);
    assert.match(out, /^ {2}db-primary\.ttl:1: read as Shift_JIS$/m);
    assert.match(out, /^ {2}connect-by-name\.bat:1: read as Shift_JIS$/m);
    assert.match(out, /^ {2}web-1\.ttl:1: read as UTF-8 with BOM$/m);
    assert.match(out, /^16 host\(s\) found in 13 file\(s\): 10 mapped to 8 instance\(s\) in ap-northeast-1, 6 not mapped\.$/m);
    assert.match(out, /^Passwords were found in 2 place\(s\) and left out: TagSSH never stores passwords/m);
    assert.ok(!out.includes('Passw0rd!2024') && !out.includes('router-secret'), 'no password is ever printed');
    assert.match(out, /Nothing written \(--dry-run\)\.\n$/);
    assert.equal(existsSync(settingsFile()), false, 'nothing written');
  });

  it("the batch file's own aws call, run by the real aws CLI, prints the address of the instance the import mapped it to", async () => {
    // connect-by-name.bat's call, as cmd.exe would pass it (REGION and NAME expanded).
    const r = await runProcess(
      'aws',
      [
        'ec2',
        'describe-instances',
        '--region',
        IMPORT_REGION,
        '--filters',
        'Name=tag:Name,Values=batch-web',
        'Name=instance-state-name,Values=running',
        '--query',
        'Reservations[].Instances[].PublicIpAddress',
        '--output',
        'text',
      ],
      { env: env() },
    );
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(
      (await tagssh('import', 'teraterm', join(dir, 'connect-by-name.bat'), '--region', IMPORT_REGION, '--dry-run', '--json')).stdout,
    ) as { plan: ImportPlan };
    const row = plan.plan.rows.find((x) => x.at.file === 'connect-by-name.bat')!;
    assert.equal(row.instance?.id, world.ids['batch-web'].id);
    const described = JSON.parse(
      execFileSync(
        'aws',
        ['ec2', 'describe-instances', '--region', IMPORT_REGION, '--instance-ids', row.instance!.id, '--query', 'Reservations[0].Instances[0].PublicIpAddress'],
        { env: env(), encoding: 'utf8' },
      ),
    ) as string;
    assert.equal(r.stdout.trim(), described);
  });

  it('without --yes and without a terminal to ask on, nothing is written (exit 30)', async () => {
    const r = await tagssh('import', 'teraterm', dir, '--region', IMPORT_REGION);
    assert.equal(r.code, exitCodeFor('CANCELLED'), r.stderr);
    assert.match(r.stderr, /Not confirmed: Write the settings of 8 instance\(s\)\?/);
    assert.match(r.stderr, /pass --yes/);
    assert.equal(existsSync(settingsFile()), false);
  });

  it('--yes writes per-instance settings (never a password); a key file named in a macro is found here by its file name; Tera Term host keys become TagSSH entries, a conflicting one is reported and not imported', async () => {
    // The key web-1.ttl names as C:\Users\taro\.ssh\web.pem, as it sits in this machine's ~/.ssh.
    mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, '.ssh', 'web.pem'), 'not really a key\n', { mode: 0o600 });
    // Tera Term's ssh_known_hosts: a key for web-1's address, and one for app-1 that differs from what TagSSH trusts.
    const web1 = makeKey(join(home, 'gen'), 'ed25519', { name: 'web1_host' });
    const app1Old = makeKey(join(home, 'gen'), 'ed25519', { name: 'app1_trusted' });
    const app1Tt = makeKey(join(home, 'gen'), 'ecdsa', { name: 'app1_teraterm' });
    const body = (k: { publicKey: string }) => k.publicKey.split(' ').slice(0, 2).join(' ');
    appendFileSync(join(dir, 'ssh_known_hosts'), `127.0.0.71 ${body(web1)}\r\n127.0.0.72 ${body(app1Tt)}\r\n`);
    const store = new KnownHostsStore(join(home, 'tagssh', 'config', 'known_hosts'));
    const [kt, b64] = body(app1Old).split(' ');
    store.trust(world.ids['app-1'].id, {
      label: 'app-1',
      instanceId: world.ids['app-1'].id,
      region: IMPORT_REGION,
      keys: [{ keyType: kt!, publicKey: b64!, fingerprint: app1Old.fingerprint }],
      source: 'confirmed',
      addedAt: '',
      lastAddress: null,
    });

    const r = await tagssh('import', 'teraterm', dir, '--region', IMPORT_REGION, '--yes');
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`ssh_known_hosts:\\d+\\s+web-1 \\(${world.ids['web-1'].id}\\)\\s+ssh-ed25519 ${web1.fingerprint.replace(/\+/g, '\\+')}\\s+will be trusted`),
    );
    assert.match(
      r.stdout,
      new RegExp(
        `ssh_known_hosts:\\d+\\s+app-1 \\(${world.ids['app-1'].id}\\)\\s+ecdsa-sha2-nistp256 \\S+\\s+CONFLICT: TagSSH trusts another key for this instance; not imported`,
      ),
    );
    assert.match(
      r.stdout,
      new RegExp(
        `Wrote the settings of 8 instance\\(s\\); trusted 1 host key\\(s\\)\\. Not imported \\(TagSSH trusts another key\\): ${world.ids['app-1'].id}\\.`,
      ),
    );

    const connectAs = readConnectAs();
    assert.deepEqual(connectAs[world.ids['web-1'].id], { user: 'ec2-user', port: 22, identityFile: join(home, '.ssh', 'web.pem'), auth: 'publickey' });
    assert.deepEqual(connectAs[world.ids.legacy.id], { user: 'admin', port: 22, auth: 'password' });
    assert.deepEqual(connectAs[world.ids['app-1'].id], { user: 'ubuntu', port: 22, auth: 'agent' });
    assert.equal(connectAs[world.twins.ids[0]!], undefined, 'an ambiguous Name writes nothing');
    assert.ok(!readFileSync(settingsFile(), 'utf8').includes('Passw0rd'), 'no password in the settings');

    const web1Entry = store.get(world.ids['web-1'].id)!;
    assert.deepEqual([web1Entry.source, web1Entry.keys.map((k) => k.fingerprint)], ['imported', [web1.fingerprint]]);
    assert.deepEqual(
      store.get(world.ids['app-1'].id)!.keys.map((k) => k.fingerprint),
      [app1Old.fingerprint],
      'the key TagSSH trusted is kept',
    );
    assert.match(readFileSync(store.path, 'utf8'), new RegExp(`^${world.ids['web-1'].id} ssh-ed25519 \\S+ tagssh source=imported `, 'm'));
  });

  it('--json prints the plan and what was written; --yes with --dry-run, a missing path, a folder without macros and a bad region are refused', async () => {
    const j = await tagssh('import', 'teraterm', join(dir, 'web-1.ttl'), '--region', IMPORT_REGION, '--yes', '--json');
    assert.equal(j.code, 0, j.stderr);
    const doc = JSON.parse(j.stdout) as { plan: ImportPlan; written: ImportResult };
    assert.deepEqual(
      doc.plan.rows.map((x) => [x.at.file, x.found, x.instance?.name]),
      [['web-1.ttl', '127.0.0.71', 'web-1']],
    );
    assert.deepEqual(doc.written, { instances: 1, hostKeysAdded: 0, hostKeyConflicts: [] });

    const both = await tagssh('import', 'teraterm', dir, '--yes', '--dry-run');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--yes and --dry-run contradict each other/);
    const missing = await tagssh('import', 'teraterm', join(dir, 'nope.ttl'));
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /Cannot read .*nope\.ttl: no such file or folder/);
    const empty = mkdtempSync(join(tmpdir(), 'tagssh-import-empty-'));
    writeFileSync(join(empty, 'notes.txt'), 'nothing to see\n');
    const none = await tagssh('import', 'teraterm', empty);
    assert.equal(none.code, 3);
    assert.match(none.stderr, /No Tera Term macro, batch file, shell script, TERATERM\.INI, ssh_known_hosts or ssh config in/);
    const region = await tagssh('import', 'teraterm', dir, '--region', 'mars-north-1', '--dry-run');
    assert.equal(region.code, exitCodeFor('BAD_REGION'), region.stderr);
    const profile = await tagssh('import', 'teraterm', dir, '--profile', 'nope', '--dry-run');
    assert.equal(profile.code, exitCodeFor('NO_CREDENTIALS'), profile.stderr);
    assert.match(profile.stderr, /AWS profile "nope" does not exist/);
    const noArg = await tagssh('import', 'teraterm');
    assert.equal(noArg.code, 2);
    assert.match(noArg.stderr, /missing required argument 'paths'/);
  });
});

describe('on a terminal, the import asks before writing', () => {
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'tagssh-import-tty-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));
  const onPty = (answer: string) =>
    runProcess(
      'python3',
      [
        join(import.meta.dirname, '../../../lab/ptyDriver.py'),
        '40',
        '200',
        JSON.stringify([
          ['wait', 'Write the settings of 1 instance\\(s\\)\\? \\[y/N\\]'],
          ['send', `${answer}\r`],
        ]),
        '--',
        process.execPath,
        TAGSSH_BIN,
        'import',
        'teraterm',
        join(IMPORT_FIXTURES, 'web-1.ttl'),
        '--region',
        IMPORT_REGION,
      ],
      { env: env() },
    );

  it('n (or Enter) writes nothing; y writes', async () => {
    const no = await onPty('n');
    assert.match(no.stdout, /Cancelled: nothing was changed\.[\s\S]*EXIT:30\n$/);
    assert.equal(existsSync(settingsFile()), false);
    const yes = await onPty('y');
    assert.match(yes.stdout, /Wrote the settings of 1 instance\(s\); trusted 0 host key\(s\)\.[\s\S]*EXIT:0\n$/);
    assert.deepEqual(readConnectAs()[world.ids['web-1'].id], { user: 'ec2-user', port: 22, auth: 'publickey' });
  });
});

describe('an imported instance connects by Name with the macro’s user and key', () => {
  let host: SshdHost;
  let dir: string;
  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'tagssh-import-connect-'));
    const key = makeKey(join(home, 'gen'), 'ed25519', { name: 'lab-import' });
    host = await startSshd({ address: '127.0.0.111', authorizedKeys: [key.publicKey] });
    // Seeded without tagssh:user / tagssh:port tags: only the import tells TagSSH the user and port.
    const seeded = await seedInstance(moto.sdk(IMPORT_REGION), { name: 'imported-web' });
    await attachEip(moto.sdk(IMPORT_REGION), seeded.id, host.address);
    mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
    copyFileSync(key.privatePath, join(home, '.ssh', 'lab-import.pem'));
    chmodSync(join(home, '.ssh', 'lab-import.pem'), 0o600);
    // The macro as it was written on the Windows machine, and Tera Term's record of the host key.
    dir = mkdtempSync(join(tmpdir(), 'tagssh-import-macro-'));
    writeFileSync(
      join(dir, 'imported-web.ttl'),
      `; 本番 Web\r\nHOST = '${host.address}:${host.port}'\r\nOPTS = ' /ssh /2 /auth=publickey /user=${host.user} /keyfile=C:\\Users\\taro\\.ssh\\lab-import.pem'\r\nstrconcat HOST OPTS\r\nconnect HOST\r\n`,
    );
    const hk = host.hostKeys[0]!.publicKey.split(' ');
    writeFileSync(join(dir, 'ssh_known_hosts'), `[${host.address}]:${host.port} ${hk[0]} ${hk[1]}\r\n`);
  });
  after(async () => {
    await host?.stop();
    if (host) cleanupSshd(host);
    rmSync(home, { recursive: true, force: true });
  });

  it('before the import it cannot (unknown host key, no key); after it, `tagssh ssh imported-web -- …` logs in as the macro said', async () => {
    const before = await tagssh('ssh', 'imported-web', '--region', IMPORT_REGION, '--', 'echo', 'hello');
    assert.notEqual(before.code, 0, before.stdout);
    const imp = await tagssh('import', 'teraterm', dir, '--region', IMPORT_REGION, '--yes');
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stdout, /imported-web \(i-[0-9a-f]+\)\s+user \S+, port \d+, key \S+lab-import\.pem, publickey\s+by Elastic IP/);
    assert.match(imp.stdout, /will be trusted/);
    const r = await tagssh('ssh', 'imported-web', '--region', IMPORT_REGION, '--', 'echo "as $(id -un) on $TAGSSH_TEST_HOST"');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `as ${host.user} on ${host.address}\n`);
  });
});
