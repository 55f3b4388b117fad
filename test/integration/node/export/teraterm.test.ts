import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { freePort } from '../../../lab/ports.js';
import { runTtl, type World } from '../../../support/ttl/interpreter.js';
import { parseCmdExec } from '../../../support/ttl/cmd.js';
import { parseTtssh } from '../../../support/ttl/ttssh.js';
import { detectEncoding } from '../../../../src/common/import/encoding.js';

// TeraTerm macros from the real `tagssh export teraterm`, run by the test TTL interpreter. Their
// `exec` lines are taken apart exactly as cmd.exe would (test/support/ttl/cmd.ts) and the command
// inside — the real `tagssh resolve --name-b64 …`, or the real aws CLI — runs against moto, so the
// macro connects to the address EC2 reports now, whatever the Name holds.

const ROOT = join(import.meta.dirname, '../../../..');
const TAGSSH = join(ROOT, 'bin/tagssh.mjs');
const TRICKY = `web "1" it's & 100% ^|<> $(id)`;
const TEMP = 'C:\\Temp';

describe('tagssh export teraterm, macros run against moto', () => {
  let moto: Moto;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let sshPort: number;
  let listener: net.Server;
  let sleepyId: string;
  let sleepyAlloc: string;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'tagssh-ttl-'));
    moto = await startMoto();
    sshPort = await freePort('127.0.0.4');
    // Stands in for the SSH port of the stopped instance once it is started (--start waits for it).
    listener = net.createServer((s) => s.destroy()).listen(sshPort, '127.0.0.4');
    const ec2 = moto.sdk();
    await seedInstance(ec2, { name: TRICKY, eip: '127.0.0.2', tags: { 'tagssh:user': 'deploy' } });
    const sleepy = await seedInstance(ec2, { name: 'sleepy', eip: '127.0.0.4', stopped: true, tags: { 'tagssh:port': String(sshPort) } });
    sleepyId = sleepy.id;
    sleepyAlloc = sleepy.allocationId!;
    env = { ...process.env, ...moto.env, TAGSSH_HOME: join(work, 'home') };
  });

  after(async () => {
    listener?.close();
    await moto?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Runs what cmd.exe would run for a macro's exec line, here, and leaves its stdout in the file. */
  const world = (extra: Partial<World> = {}): World => ({
    env: { TEMP },
    exec(line, files) {
      const { argv, redirectTo } = parseCmdExec(line, { TEMP });
      const [tool, ...args] = argv;
      // --endpoint-url as well as AWS_ENDPOINT_URL_EC2: older aws CLIs (Debian's 2.9) ignore the variable.
      const r =
        tool === 'tagssh'
          ? spawnSync(process.execPath, [TAGSSH, ...args], { env, encoding: 'utf8', timeout: 60_000 })
          : spawnSync(tool!, tool === 'aws' ? [...args, '--endpoint-url', moto.endpoint] : args, { env, encoding: 'utf8', timeout: 60_000 });
      assert.ok(r.status !== null, `${tool} did not finish: ${r.error}`);
      files.set(redirectTo, r.stdout);
      return r.status;
    },
    ...extra,
  });

  const exportTtl = (dir: string, ...args: string[]) => {
    const r = spawnSync(process.execPath, [TAGSSH, 'export', 'teraterm', '--out', dir, ...args], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim().split('\n');
  };

  it('dynamic macro (tagssh helper) resolves a tricky Name through cmd.exe-safe base64 and connects', () => {
    const dir = join(work, 'dyn');
    const files = exportTtl(dir, TRICKY, 'sleepy', '--user', 'ec2-user', '--keyfile', 'C:\\keys\\web.pem');
    assert.deepEqual(readdirSync(dir).sort(), ['sleepy.ttl', 'tagssh-menu.ttl', 'web-1-it-s-100-id.ttl']);
    assert.equal(files.length, 3);
    const macro = readFileSync(join(dir, 'web-1-it-s-100-id.ttl'), 'utf8');
    const r = runTtl(macro, world());
    assert.deepEqual(r.messages, []);
    const c = parseTtssh(r.connect!);
    assert.equal(c.host, '127.0.0.2');
    assert.equal(c.port, 22);
    assert.deepEqual(c.options, [
      { name: 'ssh2', value: null },
      { name: 'auth', value: 'publickey' },
      { name: 'user', value: 'ec2-user' },
      { name: 'keyfile', value: 'C:\\keys\\web.pem' },
    ]);
  });

  it('menu macro: a stopped instance is started on request, then connected', () => {
    const macro = readFileSync(join(work, 'dyn', 'tagssh-menu.ttl'), 'utf8');
    let asked = '';
    const real = world();
    // moto gives a started instance a random public IP (and drops the EIP), and `--start` probes
    // the port it reports: never let that leave 127.0.0.0/8. The start itself is done here — with
    // the aws CLI, re-associating the loopback EIP — and the macro's start command then resolves.
    const aws = (...args: string[]) => {
      const r = spawnSync('aws', ['ec2', ...args, '--region', 'us-east-1', '--endpoint-url', moto.endpoint], { env, encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
    };
    const exec: World['exec'] = (line, files) => {
      const { argv } = parseCmdExec(line, { TEMP });
      if (!argv.includes('--start')) return real.exec(line, files);
      aws('start-instances', '--instance-ids', sleepyId);
      aws('associate-address', '--allocation-id', sleepyAlloc, '--instance-id', sleepyId, '--allow-reassociation');
      return real.exec(line.replace(' --start', ''), files);
    };
    const r = runTtl(macro, { ...real, exec, listbox: (items) => items.findIndex((i) => i.startsWith('sleepy')), yesnobox: (m) => ((asked = m), true) });
    assert.match(asked, /sleepy is stopped/);
    assert.equal(r.execs.length, 2);
    const c = parseTtssh(r.connect!);
    assert.equal(c.host, '127.0.0.4');
    assert.equal(c.port, sshPort);
  });

  it('dynamic macro with the aws CLI helper works without TagSSH', () => {
    const dir = join(work, 'aws');
    exportTtl(dir, TRICKY, '--helper', 'aws', '--user', 'ec2-user');
    const macro = readFileSync(join(dir, 'web-1-it-s-100-id.ttl'), 'utf8');
    const r = runTtl(macro, world());
    assert.deepEqual(r.messages, []);
    assert.equal(parseTtssh(r.connect!).host, '127.0.0.2');
    assert.equal(parseCmdExec(r.execs[0]!, { TEMP }).argv[0], 'aws');
  });

  it('a lookup that fails ends in a message box, not a connect', () => {
    const macro = readFileSync(join(work, 'dyn', 'web-1-it-s-100-id.ttl'), 'utf8');
    const r = runTtl(macro, {
      ...world(),
      env: { TEMP },
      exec: (line, files) => world().exec(line.replace('--region us-east-1', '--region eu-west-3'), files),
    });
    assert.equal(r.connect, undefined);
    assert.match(r.messages[0]!, /no usable address for web "1" it's & 100% \^\|<> \$\(id\)/);
  });

  it('static export bakes the current address in', () => {
    const dir = join(work, 'static');
    exportTtl(dir, TRICKY, '--static'); // no --user: picked like `tagssh ssh` does (here: the tagssh:user tag)
    const r = runTtl(readFileSync(join(dir, 'web-1-it-s-100-id.ttl'), 'utf8'), { exec: () => assert.fail('static runs nothing') });
    const c = parseTtssh(r.connect!);
    assert.equal(c.host, '127.0.0.2');
    assert.equal(c.options.find((o) => o.name === 'user')!.value, 'deploy');
    assert.equal(c.options.find((o) => o.name === 'auth')!.value, 'pageant');
  });

  it('--tagssh-path: the macro runs TagSSH from where it is installed, not from PATH; without it the export says so', () => {
    const dir = join(work, 'path');
    const tool = 'C:\\Program Files\\TagSSH\\tagssh.cmd';
    const r = spawnSync(process.execPath, [TAGSSH, 'export', 'teraterm', TRICKY, '--out', dir, '--tagssh-path', tool], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /--tagssh-path/);
    const ran: string[] = [];
    const exec: World['exec'] = (line, files) => {
      const { argv } = parseCmdExec(line, { TEMP });
      ran.push(argv[0]!);
      return world().exec(line.replace(`"${tool}"`, 'tagssh'), files);
    };
    const out = runTtl(readFileSync(join(dir, 'web-1-it-s-100-id.ttl'), 'utf8'), { ...world(), exec });
    assert.deepEqual(ran, [tool]);
    assert.equal(parseTtssh(out.connect!).host, '127.0.0.2');

    const plain = spawnSync(process.execPath, [TAGSSH, 'export', 'teraterm', TRICKY, '--out', join(work, 'path2')], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stderr, /from PATH on the machine where Tera Term runs.*--tagssh-path/);

    const bad = spawnSync(process.execPath, [TAGSSH, 'export', 'teraterm', TRICKY, '--out', join(work, 'path3'), '--tagssh-path', 'C:\\a"b\\tagssh.cmd'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(bad.status, 40);
    assert.match(bad.stderr, /cmd\.exe would interpret/);
  });

  it('--lang ja: the macro that fails to look up says so in Japanese, naming the instance; --lang fr is refused before any AWS call', () => {
    const dir = join(work, 'ja');
    exportTtl(dir, TRICKY, '--user', 'ec2-user', '--lang', 'ja');
    const bytes = readFileSync(join(dir, 'web-1-it-s-100-id.ttl'));
    // The header comments speak Japanese too, in bytes Tera Term reads as UTF-8.
    assert.equal(detectEncoding(bytes), 'utf-8');
    const macro = bytes.toString('utf8');
    assert.match(macro, /^; TagSSH: .+ に接続\r\n; TagSSH が \S+ に書き出しました。編集せず、書き出し直してください。\r\n/);
    const r = runTtl(macro, {
      ...world(),
      env: { TEMP },
      exec: (line, files) => world().exec(line.replace('--region us-east-1', '--region eu-west-3'), files),
    });
    assert.equal(r.connect, undefined);
    assert.match(r.messages[0]!, /^web "1" it's & 100% \^\|<> \$\(id\)（i-[0-9a-f]+, us-east-1）の使えるアドレスが見つかりません。/);
    // The Japanese macro connects like the English one.
    assert.equal(parseTtssh(runTtl(macro, world()).connect!).host, '127.0.0.2');
    const wrong = spawnSync(process.execPath, [TAGSSH, 'export', 'teraterm', TRICKY, '--lang', 'fr', '--out', join(work, 'fr')], {
      env: { ...env, AWS_ENDPOINT_URL_EC2: 'http://127.0.0.1:9' },
      encoding: 'utf8',
    });
    assert.equal(wrong.status, 2, wrong.stderr);
    assert.match(wrong.stderr, /Unknown --lang "fr"\.\n {2}→ Use --lang en or --lang ja\./);
    assert.ok(!existsSync(join(work, 'fr')));
  });

  it('refuses a relative key path with a clear error', () => {
    const r = spawnSync(process.execPath, [TAGSSH, 'export', 'teraterm', TRICKY, '--keyfile', 'web.pem', '--out', join(work, 'x')], { env, encoding: 'utf8' });
    assert.equal(r.status, 40);
    assert.match(r.stderr, /not an absolute Windows path/);
    assert.equal(r.stdout, '');
  });
});
