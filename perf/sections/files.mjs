// Files over SFTP: `tagssh cp` against OpenSSH `scp` and `sftp` — same sshd, same key, same cipher
// (aes128-gcm@openssh.com, TagSSH's first choice), same file, both directions; and the time to
// open a second channel (SFTP) on a connection already authenticated, against a fresh connect.
//
// Copies are timed whole, as a person sees them: process start, name resolution (tagssh through
// EC2 on moto), handshake, transfer, exit. MiB/s = size / wall time. The sshd is on this machine,
// so both ends share its disk and CPUs: the figures compare the clients, not a network.
// Each timed copy goes to a name that does not exist yet (a first download), after `sync`, so that
// no copy pays for the write-back of the one before it. Copying onto an existing file is timed
// too, as information: there the tools differ by design. scp and sftp overwrite the file in place
// (a cut-off copy leaves a partial file under the real name); tagssh writes a temporary file and
// renames it over the old one, and on ext4 that rename first allocates the new file's blocks
// (auto_da_alloc) and frees the old one's: about 0.2 s per 512 MiB here.
// Garbage collection: one traced copy each way counts V8's full-heap marks (once per ~64 MiB
// moved with V8's default incremental marking; tagssh turns it off, src/node/cli/gcTuning.ts).
// Reused connection: in-process, SessionManager.acquire + an SFTP channel on a warm pool vs a
// fresh connect + the same channel.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, startSshLab } from '../lib/sshLab.mjs';

export const title = 'Files: tagssh cp vs scp and sftp (512 MiB up and down); full-heap marks per copy; reused-connection open';

const ADDRESS = '127.0.0.32';
const CIPHER = 'aes128-gcm@openssh.com';

async function writeRandom(path, mib) {
  const out = createWriteStream(path);
  for (let i = 0; i < mib; i++) if (!out.write(randomBytes(1048576))) await new Promise((r) => out.once('drain', r));
  await new Promise((r, j) => out.end((e) => (e ? j(e) : r())));
}

const sha = (p) => createHash('sha256').update(readFileSync(p)).digest('hex');
const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

export async function run(ctx) {
  const lab = await startSshLab(ctx, { address: ADDRESS, prefix: 'tagssh-bench-files-', name: 'bench-files' });
  const { dir, key, host, env } = lab;
  const rows = [];
  try {
    const node = process.execPath;
    const opensshOpts = [...lab.opensshArgs, '-c', CIPHER, '-P', String(host.port)];
    const remoteDir = join(dir, 'remote');
    const localDir = join(dir, 'local');
    mkdirSync(remoteDir);
    mkdirSync(localDir);
    const mib = ctx.quick ? 64 : 512;
    const src = join(localDir, 'src.bin');
    const remoteSrc = join(remoteDir, 'src.bin');
    ctx.log(`writing ${mib} MiB of random data`);
    await writeRandom(src, mib);
    writeFileSync(remoteSrc, readFileSync(src));
    const want = sha(src);

    const at = lab.login;
    const tagsshCp = (a, b) => ctx.spawnTimed(node, [ctx.tagssh, 'cp', '-i', key.privatePath, a, b], env);
    const scp = (a, b) => ctx.spawnTimed('scp', [...opensshOpts, a, b], env);
    // sftp reads its commands from a batch file; -P is its port flag as well.
    const sftp = (cmd) => {
      const batch = join(dir, 'batch');
      writeFileSync(batch, `${cmd}\n`);
      return ctx.spawnTimed('sftp', [...opensshOpts, '-b', batch, at], env);
    };
    // First contact for each client (host key trusted) outside the timings.
    await ctx.spawnTimed(node, [ctx.tagssh, 'ssh', 'bench-files', '-i', key.privatePath, '--accept-new', '--', 'true'], env);
    await scp(join(dir, 'keys', 'id_ed25519.pub'), `${at}:${join(remoteDir, 'warm')}`);

    const runs = ctx.quick ? 1 : 5;
    const settle = () => spawnSync('sync');
    const cases = {
      upload: {
        tagssh: () => tagsshCp(src, `bench-files:${join(remoteDir, 'up-tagssh.bin')}`),
        scp: () => scp(src, `${at}:${join(remoteDir, 'up-scp.bin')}`),
        sftp: () => sftp(`put ${src} ${join(remoteDir, 'up-sftp.bin')}`),
        dest: { tagssh: join(remoteDir, 'up-tagssh.bin'), scp: join(remoteDir, 'up-scp.bin'), sftp: join(remoteDir, 'up-sftp.bin') },
      },
      download: {
        tagssh: () => tagsshCp(`bench-files:${remoteSrc}`, join(localDir, 'down-tagssh.bin')),
        scp: () => scp(`${at}:${remoteSrc}`, join(localDir, 'down-scp.bin')),
        sftp: () => sftp(`get ${remoteSrc} ${join(localDir, 'down-sftp.bin')}`),
        dest: { tagssh: join(localDir, 'down-tagssh.bin'), scp: join(localDir, 'down-scp.bin'), sftp: join(localDir, 'down-sftp.bin') },
      },
    };
    const tools = ['tagssh', 'scp', 'sftp'];
    const rate = (ms) => mib / (ms / 1000);
    const compare = (name, times, note, informational) => {
      const ours = rate(med(times.tagssh));
      for (const tool of ['scp', 'sftp']) {
        const theirs = rate(med(times[tool]));
        rows.push({
          name,
          tagssh: { value: ours, unit: 'MiB/s' },
          incumbent: { value: theirs, unit: 'MiB/s', label: tool },
          ratio: ours / theirs,
          ...(informational ? {} : { target: `>= 1.0x of ${tool}`, pass: ours / theirs >= 1.0 }),
          note,
        });
      }
    };
    for (const [direction, c] of Object.entries(cases)) {
      ctx.log(`${direction} ${mib} MiB × ${runs}, then once more onto the existing files`);
      const times = { tagssh: [], scp: [], sftp: [] };
      for (let i = 0; i < runs; i++) {
        // Round-robin, so load from elsewhere on the machine hits every client alike.
        for (const tool of tools) {
          rmSync(c.dest[tool], { force: true });
          settle();
          times[tool].push((await c[tool]()).ms);
        }
      }
      const over = { tagssh: [], scp: [], sftp: [] };
      for (const tool of tools) {
        settle();
        over[tool].push((await c[tool]()).ms);
      }
      for (const tool of tools) {
        if (sha(c.dest[tool]) !== want) throw new Error(`${c.dest[tool]}: the copy differs from the source`);
        rmSync(c.dest[tool]);
      }
      compare(
        `${direction} ${mib} MiB, whole command (${CIPHER})`,
        times,
        `median of ${runs} round-robin runs, each to a new file after sync; wall time from process start to exit (tagssh also resolves the Name through EC2); sha256 checked`,
      );
      compare(
        `${direction} ${mib} MiB onto an existing file, whole command`,
        over,
        'one run each after the timed ones; scp/sftp overwrite in place, tagssh replaces the file atomically (see the section header)',
        true,
      );
    }

    // Garbage collection while copying (src/node/cli/gcTuning.ts): with V8's default incremental
    // marking, the external memory of the packets started a mark of the whole heap every ~64 MiB.
    ctx.log('full-heap marks per copy (node --trace-gc)');
    for (const [direction, a, b] of [
      ['upload', src, `bench-files:${join(remoteDir, 'gc-up.bin')}`],
      ['download', `bench-files:${remoteSrc}`, join(localDir, 'gc-down.bin')],
    ]) {
      const traced = await ctx.spawnTimed(node, ['--trace-gc', ctx.tagssh, 'cp', '-i', key.privatePath, a, b], env);
      const marks = traced.stdout.split('\n').filter((l) => l.includes('Mark-Compact'));
      const incremental = marks.filter((l) => /incremental marking/.test(l)).length;
      rows.push({
        name: `${direction} ${mib} MiB: full-heap marks (node --trace-gc)`,
        tagssh: { value: marks.length, unit: 'marks' },
        incumbent: null,
        target: '0 incremental, <= 2 in all',
        pass: incremental === 0 && marks.length <= 2,
        note: `${incremental} started by incremental marking; V8's default marked about once per 64 MiB moved (see src/node/cli/gcTuning.ts)`,
      });
    }
    rmSync(join(remoteDir, 'gc-up.bin'), { force: true });
    rmSync(join(localDir, 'gc-down.bin'), { force: true });

    ctx.log('second open on a reused connection');
    const { SessionManager } = await load(ctx, 'src/node/ssh/sessionManager.ts');
    const { KnownHostsStore } = await load(ctx, 'src/node/ssh/knownHosts.ts');
    const { FileSession } = await load(ctx, 'src/node/files/index.ts');
    const store = new KnownHostsStore(join(dir, 'kh.json'));
    const target = { host: ADDRESS, port: host.port, user: host.user, label: 'bench-files', identityFile: key.privatePath, acceptNewHostKey: true };
    const connectOptions = { knownHosts: store, consoleOutput: null, agent: null };
    const warm = new SessionManager({ connectOptions });
    const holder = await warm.acquire(target); // the open terminal tab
    const openFiles = async (sm) => {
      const t0 = performance.now();
      const { connection, release } = await sm.acquire(target);
      const files = await FileSession.open(connection);
      const ms = performance.now() - t0;
      files.close();
      release();
      return ms;
    };
    const m = await ctx.medians({ reused: () => openFiles(warm), fresh: () => openFiles(new SessionManager({ connectOptions })) }, Math.max(ctx.runs, 9));
    holder.release();
    rows.push({
      name: 'open an SFTP channel: on the pooled connection vs a fresh connect',
      tagssh: { median_ms: m.reused.median_ms },
      incumbent: { median_ms: m.fresh.median_ms, label: 'fresh connect (tagssh)' },
      ratio: m.reused.median_ms / m.fresh.median_ms,
      target: '<= 0.2x of a fresh connect',
      pass: m.reused.median_ms / m.fresh.median_ms <= 0.2,
      note: 'in-process: SessionManager.acquire + FileSession.open; the fresh side includes TCP, key exchange and auth',
    });
  } finally {
    await lab.stop();
  }
  return rows;
}
