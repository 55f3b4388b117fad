import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { boundsTree, dotDotTree, escapeTree, HONEST_CONTENT, hostileSubsystem, writeHostileSpec } from '../../../lab/hostileSftp.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { runProcess, runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// `tagssh cp -r` from a hostile server: the lab's own SFTP v3 responder (test/lab/hostileSftp.py)
// as a real sshd's sftp subsystem, behind a Name in moto. The server controls every name in a
// listing; nothing it says may make the copy write, rename or chmod outside the destination
// (CVE-2019-6111's class; CVE-2018-20685 for `./..` with -p).
//
// What OpenSSH 9.2's `sftp -b - … get -r /data DEST` does with the same names (run below as the
// reference when `sftp` is installed): `../escape-1`, `../../.ssh/authorized_keys`,
// `sub/../../../escape-2` and the absolute `/…/abs-x` are dropped with `Server sent suspect path
// "…" during readdir of "/data"`; `back\slash\..\..\escape-3` is copied as the plain file of that
// name (a backslash is an ordinary character on POSIX); `.` and `..` are skipped; ok.txt is copied;
// nothing is written outside DEST; in batch mode it exits 0. A name holding a NUL makes it refuse
// the whole listing ("parse filenames: invalid format") and copy nothing, so its run leaves that
// name out. tagssh refuses the same names (the NUL one too), copies the rest, and exits 1.

let lab: CliLab;
let box: string;
let spec: string;
let n = 0;
const env = () => ({ PATH: process.env.PATH, ...lab.moto.env, HOME: lab.home, TAGSSH_HOME: join(lab.home, 'tagssh') });
const tagssh = (args: string[]): Promise<Run> => runTagssh(args, env());

/** Every path under `dir` (but `skip`) with its mode, mtime and size: what a copy must not change. */
function snapshot(dir: string, skip: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    const s = lstatSync(d);
    out.set(relative(box, d) || '.', `${s.mode.toString(8)} ${s.mtimeMs} ${s.size}`);
    if (!s.isDirectory()) return;
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (p !== skip) walk(p);
    }
  };
  walk(dir);
  return out;
}

/** A home-like layout: box/<n>/home/work/{dest/, .ssh/authorized_keys}, with fixed old times. */
function layout() {
  const top = join(box, `case-${++n}`);
  const work = join(top, 'home', 'work');
  mkdirSync(join(work, '.ssh'), { recursive: true });
  mkdirSync(join(work, 'dest'));
  writeFileSync(join(work, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA mine\n');
  for (const p of [join(work, '.ssh', 'authorized_keys'), join(work, '.ssh'), join(work, 'dest'), work, join(top, 'home'), top]) {
    chmodSync(p, p.endsWith('authorized_keys') ? 0o600 : 0o755);
    utimesSync(p, 1_600_000_000, 1_600_000_000);
  }
  return { top, work, dest: join(work, 'dest'), abs: join(top, 'abs-x') };
}

before(async () => {
  box = mkdtempSync(join(tmpdir(), 'tagssh-cp-hostile-'));
  spec = join(box, 'spec.json');
  writeHostileSpec(spec, { root: { entries: [] } });
  lab = await startCliLab({ prefix: 'tagssh-cli-cph-', keyName: 'team-key', sshd: { address: '127.0.0.121', sftpSubsystem: hostileSubsystem(spec) } });
  await seedInstance(lab.ec2, { name: 'evil', eip: '127.0.0.121', keyName: 'team-key', imageId: 'ami-1e749f67', tags: sshdTags(lab.host) });
  assert.equal((await tagssh(['ssh', 'evil', '--accept-new', '--', 'true'])).code, 0);
});

after(async () => {
  await lab?.stop();
  if (box) rmSync(box, { recursive: true, force: true });
});

describe('tagssh cp -r from a hostile server', () => {
  it('refuses every name that is not one path component, naming it escaped; copies ok.txt; writes nothing outside DEST; exits 1', async () => {
    const { top, dest, abs } = layout();
    writeHostileSpec(spec, escapeTree(abs));
    const before = snapshot(top, dest);
    const r = await tagssh(['cp', '-r', 'evil:/data', dest]);
    assert.equal(r.code, 1, `exit 1 (never a silent success)\n${r.stderr}`);
    assert.deepEqual(snapshot(top, dest), before, 'nothing outside DEST was created, changed or chmodded');
    assert.deepEqual(readdirSync(dest), ['data'], 'nothing beside the copy inside DEST');
    assert.equal(readFileSync(join(dest, 'data', 'ok.txt'), 'utf8'), HONEST_CONTENT, 'the honest file is delivered');
    // A backslash is an ordinary character of a POSIX name (on Windows it is refused: unit tests).
    assert.deepEqual(readdirSync(join(dest, 'data')).sort(), ['back\\slash\\..\\..\\escape-3', 'ok.txt', 'sub']);
    for (const name of ['../escape-1', '../../.ssh/authorized_keys', 'sub/../../../escape-2', abs, 'nul\\x00byte'])
      assert.ok(r.stderr.includes(`"${name}"`), `${name} is reported, escaped:\n${r.stderr}`);
    assert.ok(!r.stderr.includes('\0'), 'no raw NUL reaches the terminal');
    assert.match(r.stderr, /not one plain name/);
    assert.match(r.stderr, /skipped 5 entries/i);
  });

  it('with -p, a `./..` entry neither chmods nor re-times the parent of DEST (CVE-2018-20685), and the exit is not 0', async () => {
    const { work } = layout();
    writeHostileSpec(spec, dotDotTree());
    const dest = join(work, 'fresh'); // does not exist: /d becomes DEST itself, `./..` its parent
    const before = statSync(work);
    const t0 = Date.now();
    const r = await tagssh(['cp', '-r', '-p', 'evil:/d', dest]);
    assert.equal(r.code, 1, r.stderr);
    const after = statSync(work);
    assert.equal((after.mode & 0o7777).toString(8), (before.mode & 0o7777).toString(8), 'the parent keeps its mode');
    // Creating DEST in it is the one change the parent may see: its mtime becomes now, never the server's 1970.
    assert.ok(after.mtimeMs >= t0 - 2000, `the parent's mtime is not the server's (${after.mtimeMs})`);
    assert.equal(readFileSync(join(dest, 'ok.txt'), 'utf8'), HONEST_CONTENT);
    assert.ok(r.stderr.includes('"./.."'), r.stderr);
  });

  it('-p keeps setuid only for root (who applies the mode: this process, downloading); as another user the mode is masked to 0777', async () => {
    writeHostileSpec(spec, dotDotTree()); // /d/ok.txt has mode 4755
    const asRoot = join(layout().work, 'as-root');
    const r = await tagssh(['cp', '-r', '-p', 'evil:/d', asRoot]);
    assert.equal(r.code, 1, r.stderr); // `./..` is skipped
    assert.equal((statSync(join(asRoot, 'ok.txt')).mode & 0o7777).toString(8), process.getuid?.() === 0 ? '4755' : '755');
    if (process.getuid?.() !== 0) return;
    // The same copy by an unprivileged user (nobody), with a home of its own holding the same key.
    const nobody = join(box, 'nobody');
    mkdirSync(join(nobody, '.ssh'), { recursive: true });
    writeFileSync(join(nobody, '.ssh', 'team-key.pem'), readFileSync(join(lab.home, '.ssh', 'team-key.pem')), { mode: 0o600 });
    mkdirSync(join(nobody, 'dest'));
    chmodSync(box, 0o755);
    spawnSync('chown', ['-R', '65534:65534', nobody]);
    const asNobody = (args: string[]) =>
      runProcess('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, TAGSSH_BIN, ...args], {
        env: { PATH: process.env.PATH, ...lab.moto.env, HOME: nobody, TAGSSH_HOME: join(nobody, 'tagssh') },
      });
    assert.equal((await asNobody(['ssh', 'evil', '--accept-new', '--', 'true'])).code, 0);
    const n = await asNobody(['cp', '-r', '-p', 'evil:/d', join(nobody, 'dest', 'd')]);
    assert.equal(n.code, 1, n.stderr);
    assert.equal((statSync(join(nobody, 'dest', 'd', 'ok.txt')).mode & 0o7777).toString(8), '755');
  });

  it('stops a listing that never ends at the per-directory cap, naming the cap, with bounded memory', async () => {
    const { dest } = layout();
    writeHostileSpec(spec, boundsTree());
    const t0 = Date.now();
    const r = await tagssh(['cp', '-r', 'evil:/bomb', dest]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /more than 100000 entries/);
    assert.ok(Date.now() - t0 < 120_000);
    assert.deepEqual(readdirSync(dest), []);
  });

  it('does not follow a symlink when recursing and stops a directory that contains itself; the honest file beside it is copied', async () => {
    const { dest } = layout();
    writeHostileSpec(spec, boundsTree());
    const r = await tagssh(['cp', '-r', 'evil:/wrap', dest]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(readFileSync(join(dest, 'wrap', 'ok.txt'), 'utf8'), HONEST_CONTENT);
    assert.match(r.stderr, /"evil:\/wrap\/loop\/self": a symlink/);
    assert.match(r.stderr, /"evil:\/wrap\/loop\/again": it contains itself/);
    assert.ok(!existsSync(join(dest, 'wrap', 'loop', 'again', 'again')), 'the loop was not walked');
  });

  it('reference: OpenSSH sftp get -r on the same server copies ok.txt and writes nothing outside DEST', async (t) => {
    if (spawnSync('sftp', ['-h']).error) return t.diagnostic('sftp (openssh-client) is not installed: no reference run');
    const { top, dest, abs } = layout();
    const tree = escapeTree(abs);
    const data = tree.root.entries[0] as { entries: { name: string }[] };
    data.entries = data.entries.filter((e) => !e.name.includes('\0'));
    writeHostileSpec(spec, tree);
    const before = snapshot(top, dest);
    const kh = join(box, `known_hosts-${n}`);
    const r = await runProcess(
      'sftp',
      [
        '-b',
        '-',
        '-P',
        String(lab.host.port),
        '-i',
        lab.key.privatePath,
        '-o',
        'StrictHostKeyChecking=accept-new',
        '-o',
        `UserKnownHostsFile=${kh}`,
        `${lab.host.user}@${lab.host.address}`,
      ],
      { env: { PATH: process.env.PATH, HOME: lab.home }, input: `get -r /data ${dest}/data\n` },
    );
    rmSync(kh, { force: true });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Server sent suspect path "\.\.\/escape-1"/);
    assert.deepEqual(snapshot(top, dest), before);
    assert.equal(readFileSync(join(dest, 'data', 'ok.txt'), 'utf8'), HONEST_CONTENT);
  });
});
