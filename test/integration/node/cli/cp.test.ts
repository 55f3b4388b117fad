import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Moto } from '../../../lab/moto.js';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { freePort } from '../../../lab/ports.js';
import { type SshdHost } from '../../../lab/sshd.js';
import { runProcess, runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// `tagssh cp` end to end, as people run it: a Name tag in moto whose Elastic IP is a loopback
// alias with a real sshd behind it. The sshd is on this machine, so remote files are checked on
// disk directly.

let lab: CliLab;
let moto: Moto;
let host: SshdHost;
let home: string;
let webId: string;
let n = 0;
const ODD_NAME = `it's "odd" $(x) ウェブ`;

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const fresh = (name: string) => {
  const d = join(home, 'work', `${name}-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
};
const env = () => ({ PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh') });
const tagssh = (args: string[]): Promise<Run> => runTagssh(args, env());

before(async () => {
  // One sshd answering on two addresses: two instances (two EIPs), one machine.
  const port = await freePort('127.0.0.14');
  lab = await startCliLab({
    prefix: 'tagssh-cli-cp-',
    keyName: 'team-key',
    sshd: { address: '127.0.0.14', port, extraConfig: [`ListenAddress 127.0.0.15:${port}`] },
  });
  ({ home, moto, host } = lab);
  const ec2 = lab.ec2;
  const tags = sshdTags(host);
  webId = (await seedInstance(ec2, { name: 'web', eip: '127.0.0.14', keyName: 'team-key', imageId: 'ami-1e749f67', tags })).id;
  await seedInstance(ec2, { name: ODD_NAME, eip: '127.0.0.15', keyName: 'team-key', imageId: 'ami-1e749f67', tags });
  await seedInstance(ec2, { name: 'twin', keyName: 'team-key', count: 2, tags });
  // First contact trusts each key once; every later run verifies it.
  assert.equal((await tagssh(['ssh', 'web', '--accept-new', '--', 'true'])).code, 0);
  assert.equal((await tagssh(['ssh', ODD_NAME, '--accept-new', '--', 'true'])).code, 0);
});

after(async () => {
  await lab?.stop();
});

describe('tagssh cp', () => {
  it('uploads to NAME:path and downloads from i-…:path and user@NAME:path, byte for byte', async () => {
    const local = fresh('local');
    writeFileSync(join(local, 'a.bin'), randomBytes(3_000_000));
    const remote = fresh('remote');
    const up = await tagssh(['cp', join(local, 'a.bin'), `web:${remote}/`]);
    assert.equal(up.code, 0, up.stderr);
    assert.equal(up.stderr, '', 'no progress when stderr is not a terminal');
    assert.equal(sha(join(remote, 'a.bin')), sha(join(local, 'a.bin')));

    const down = fresh('down');
    const byId = await tagssh(['cp', `${webId}:${remote}/a.bin`, join(down, 'by-id.bin')]);
    assert.equal(byId.code, 0, byId.stderr);
    const byUser = await tagssh(['cp', `${host.user}@web:${remote}/a.bin`, down]);
    assert.equal(byUser.code, 0, byUser.stderr);
    assert.equal(sha(join(down, 'by-id.bin')), sha(join(local, 'a.bin')));
    assert.equal(sha(join(down, 'a.bin')), sha(join(local, 'a.bin')));
    const wrongUser = await tagssh(['cp', `nobody-here@web:${remote}/a.bin`, down]);
    assert.equal(wrongUser.code, 23, wrongUser.stderr);
  });

  it('copies trees with -r both ways, keeps modes and times with -p, and shows --progress', async () => {
    const src = fresh('tree');
    mkdirSync(join(src, 'top', 'sub'), { recursive: true });
    writeFileSync(join(src, 'top', 'run.sh'), 'echo hi\n');
    chmodSync(join(src, 'top', 'run.sh'), 0o750);
    utimesSync(join(src, 'top', 'run.sh'), 1_400_000_000, 1_400_000_000);
    writeFileSync(join(src, 'top', 'sub', 'data'), randomBytes(100_000));
    const remote = fresh('remote');
    const up = await tagssh(['cp', '-r', '-p', '--progress', join(src, 'top'), `web:${remote}`]);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stderr, /100%.*MiB\/s/);
    const r = statSync(join(remote, 'top', 'run.sh'));
    assert.equal(r.mode & 0o7777, 0o750);
    assert.equal(Math.floor(r.mtimeMs / 1000), 1_400_000_000);
    assert.equal(sha(join(remote, 'top', 'sub', 'data')), sha(join(src, 'top', 'sub', 'data')));
    const down = fresh('down');
    const back = await tagssh(['cp', '-rp', `web:${remote}/top`, join(down, 'copy')]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(sha(join(down, 'copy', 'sub', 'data')), sha(join(src, 'top', 'sub', 'data')));
    assert.equal(statSync(join(down, 'copy', 'run.sh')).mode & 0o7777, 0o750);
  });

  it('reaches an instance whose Name has spaces, quotes, $() and Unicode, with such file names too', async () => {
    const local = fresh('local');
    const names = ['sp ace.txt', `q'uo"te.txt`, '$(touch PWNED).txt', 'new\nline.txt', 'ユニコード.txt'];
    for (const name of names) writeFileSync(join(local, name), `I am ${name}`);
    const remote = fresh('remote');
    for (const name of names) {
      const r = await tagssh(['cp', join(local, name), `${ODD_NAME}:${remote}/${name}`]);
      assert.equal(r.code, 0, r.stderr);
    }
    assert.deepEqual(readdirSync(remote).sort(), [...names].sort());
    const down = fresh('down');
    const r = await tagssh(['cp', ...names.map((name) => `${ODD_NAME}:${remote}/${name}`), down]);
    assert.equal(r.code, 0, r.stderr);
    for (const name of names) assert.equal(readFileSync(join(down, name), 'utf8'), `I am ${name}`);
    assert.ok(!existsSync(join(host.dir, 'home', 'PWNED')));
  });

  it('resumes with --resume after an interrupted copy (Ctrl-C), and never leaves a partial file under the final name', async () => {
    const local = fresh('local');
    const big = join(local, 'big.bin');
    writeFileSync(big, randomBytes(160 * 1024 * 1024));
    const remote = fresh('remote');
    const child = spawn(process.execPath, [TAGSSH_BIN, 'cp', '--progress', big, `web:${remote}/big.bin`], { env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const code = await new Promise<number | null>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        // Interrupt once a part is across (the first progress line), long before the end.
        if (/%/.test(stderr) && !child.killed) child.kill('SIGINT');
      });
      child.on('close', resolve);
    });
    assert.equal(code, 130, stderr);
    assert.match(stderr, /cancelled[\s\S]*--resume/);
    assert.ok(!existsSync(join(remote, 'big.bin')), 'no partial file under the final name');
    const left = readdirSync(remote);
    assert.equal(left.length, 1, left.join());
    assert.match(left[0]!, /^\.big\.bin\.tagssh-part-[0-9a-f]{12}$/);
    const part = join(remote, left[0]!);
    const partSize = statSync(part).size;
    assert.ok(partSize > 0 && partSize < statSync(big).size, `partial size ${partSize}`);

    const resumed = await tagssh(['cp', '--resume', '--progress', big, `web:${remote}/big.bin`]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(sha(join(remote, 'big.bin')), sha(big));
    assert.ok(!existsSync(part));
    // It continued rather than started over.
    assert.match(resumed.stderr, new RegExp(`Resuming .*big\\.bin from byte ${partSize} \\(the part already there has the same SHA-256\\)`));
    const again = await tagssh(['cp', '--resume', big, `web:${remote}/big.bin`]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /big\.bin is already complete at the destination \(same SHA-256\); not copied again\./);
  });

  it('before a large copy says its route and, once one copy measured it, the expected time; the progress line names the route', async () => {
    const local = fresh('local');
    const big = join(local, 'route.bin');
    writeFileSync(big, randomBytes(64 * 1024 * 1024));
    const remote = fresh('remote');
    // The instance no earlier test copied much to (the resume test measured web's uploads).
    const route = `direct SSH to 127.0.0.15:${host.port}`;
    const first = await tagssh(['cp', '--progress', big, `${ODD_NAME}:${remote}/one.bin`]);
    assert.equal(first.code, 0, first.stderr);
    const lines = first.stderr.split(/[\r\n]+/).filter(Boolean);
    assert.equal(lines[0], `Copying 64.0 MiB ${route}: no earlier copy over this route measured its rate; this one will.`, first.stderr);
    assert.match(lines.at(-1)!, /100% .* direct SSH$/);
    const second = await tagssh(['cp', '--progress', big, `${ODD_NAME}:${remote}/two.bin`]);
    assert.equal(second.code, 0, second.stderr);
    const expected = new RegExp(
      `^Copying 64\\.0 MiB ${route.replace(/\./g, '\\.')}: expected \\d+:\\d\\d at [\\d.]+ MiB/s \\(measured by the last copy over this route\\)\\.$`,
      'm',
    );
    assert.match(second.stderr, expected);
    assert.equal(sha(join(remote, 'two.bin')), sha(big));
    // Downloads are measured apart: the first over the route has no estimate yet.
    const down = await tagssh(['cp', '--progress', `${ODD_NAME}:${remote}/two.bin`, join(fresh('down'), 'back.bin')]);
    assert.equal(down.code, 0, down.stderr);
    assert.match(down.stderr, /^Copying 64\.0 MiB direct SSH to .*: no earlier copy over this route measured its rate; this one will\.$/m);
    // Without progress (not a terminal, no --progress) nothing is said.
    const quiet = await tagssh(['cp', big, `${ODD_NAME}:${remote}/three.bin`]);
    assert.equal(quiet.stderr, '');
  });

  it('on a terminal shows progress unless --no-progress; takes --pick and the port as -P', async () => {
    const local = fresh('local');
    writeFileSync(join(local, 'p.bin'), randomBytes(2_000_000));
    const remote = fresh('remote');
    const onPty = (args: string[]) =>
      runProcess('python3', [join(import.meta.dirname, '../../../lab/ptyDriver.py'), '30', '120', '[]', '--', process.execPath, TAGSSH_BIN, ...args], {
        env: { ...env(), TERM: 'xterm-256color' },
      });
    const shown = await onPty(['cp', join(local, 'p.bin'), `web:${remote}/shown.bin`]);
    assert.match(shown.stdout, /100%/);
    assert.match(shown.stdout, /EXIT:0\n$/);
    const quiet = await onPty(['cp', '--no-progress', join(local, 'p.bin'), `web:${remote}/quiet.bin`]);
    assert.doesNotMatch(quiet.stdout, /%/);
    assert.match(quiet.stdout, /EXIT:0\n$/);
    assert.equal(sha(join(remote, 'quiet.bin')), sha(join(local, 'p.bin')));
    const picked = await tagssh(['cp', '--pick', webId, '-P', String(host.port), join(local, 'p.bin'), `web:${remote}/picked.bin`]);
    assert.equal(picked.code, 0, picked.stderr);
    assert.equal(sha(join(remote, 'picked.bin')), sha(join(local, 'p.bin')));
  });

  it('refuses wrong inputs with the flag or form that fixes them', async () => {
    const local = fresh('local');
    writeFileSync(join(local, 'f'), 'x');
    mkdirSync(join(local, 'd'));
    const remote = fresh('remote');

    const noRemote = await tagssh(['cp', join(local, 'f'), join(local, 'g')]);
    assert.equal(noRemote.code, 2);
    assert.match(noRemote.stderr, /Neither side is on an instance: write the remote side as NAME:path/);

    const one = await tagssh(['cp', join(local, 'f')]);
    assert.equal(one.code, 2);
    assert.match(one.stderr, /needs a source and a destination/);

    const twoHosts = await tagssh(['cp', `web:${remote}/f`, `${ODD_NAME}:${remote}/g`]);
    assert.equal(twoHosts.code, 2);
    assert.match(twoHosts.stderr, /between two instances/);

    const missing = await tagssh(['cp', join(local, 'nope'), join(local, 'f'), `web:${remote}`]);
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /nope does not exist \(not copied\)/);
    assert.ok(existsSync(join(remote, 'f')), 'the other source is still copied');

    const dir = await tagssh(['cp', join(local, 'd'), `web:${remote}/d`]);
    assert.equal(dir.code, 1);
    assert.match(dir.stderr, /is a directory \(not copied\)\.\n {2}→ Add -r to copy it with its contents\./);

    const denied = await tagssh(['cp', join(local, 'f'), 'web:/sys/tagssh-denied']);
    assert.equal(denied.code, 1, denied.stderr);
    assert.match(denied.stderr, /Permission denied on web:\/sys/);

    const remoteMissing = await tagssh(['cp', `web:${remote}/absent`, local]);
    assert.equal(remoteMissing.code, 1);
    assert.match(remoteMissing.stderr, /web:.*\/absent does not exist/);

    const unknown = await tagssh(['cp', join(local, 'f'), 'no-such-name:/tmp/']);
    assert.equal(unknown.code, 3, unknown.stderr);
    const ambiguous = await tagssh(['cp', join(local, 'f'), 'twin:/tmp/']);
    assert.equal(ambiguous.code, 4, ambiguous.stderr);
    assert.match(ambiguous.stderr, /twin/);

    // --accept-new takes an optional fingerprint, so before the paths it swallows the first one:
    // the message says where the flag goes in cp's terms (cp has no remote command to put `--` before).
    const swallowed = await tagssh(['cp', '--accept-new', join(local, 'f'), `web:${remote}/swallowed`]);
    assert.equal(swallowed.code, 2);
    assert.match(
      swallowed.stderr,
      /--accept-new.*expected a host-key fingerprint such as SHA256:…; to trust a new host key without one, put --accept-new after the paths/,
    );
    assert.doesNotMatch(swallowed.stderr, /remote command/);
    assert.ok(!existsSync(join(remote, 'swallowed')), 'nothing is copied');
    const trailing = await tagssh(['cp', join(local, 'f'), `web:${remote}/after`, '--accept-new']);
    assert.equal(trailing.code, 0, trailing.stderr);
    assert.ok(existsSync(join(remote, 'after')), 'after the paths, --accept-new takes no path');

    const badPort = await tagssh(['cp', '-P', 'abc', join(local, 'f'), `web:${remote}`]);
    assert.equal(badPort.code, 2);
    assert.match(badPort.stderr, /--port/);
  });
});
