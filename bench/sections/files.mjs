// Files over SFTP: `tagssh cp` against OpenSSH `scp` and `sftp` — same sshd, same key, same cipher
// (aes128-gcm@openssh.com, TagSSH's first choice), same file, both directions; and the time to
// open a second channel (SFTP) on a connection already authenticated, against a fresh connect.
//
// Copies are timed whole, as a person sees them: process start, name resolution (tagssh through
// EC2 on moto), handshake, transfer, exit. MiB/s = size / wall time. The sshd is on this machine,
// so both ends share its disk and CPUs: the figures compare the clients, not a network.
// Reused connection: in-process, SessionManager.acquire + an SFTP channel on a warm pool vs a
// fresh connect + the same channel.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, startSshLab } from '../lib/sshLab.mjs';

export const title = 'Files: tagssh cp vs scp and sftp (512 MiB up and down); reused-connection open';

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

    const runs = ctx.quick ? 1 : 3;
    const cases = {
      upload: {
        tagssh: () => tagsshCp(src, `bench-files:${join(remoteDir, 'up-tagssh.bin')}`),
        scp: () => scp(src, `${at}:${join(remoteDir, 'up-scp.bin')}`),
        sftp: () => sftp(`put ${src} ${join(remoteDir, 'up-sftp.bin')}`),
        check: () => [join(remoteDir, 'up-tagssh.bin'), join(remoteDir, 'up-scp.bin'), join(remoteDir, 'up-sftp.bin')],
      },
      download: {
        tagssh: () => tagsshCp(`bench-files:${remoteSrc}`, join(localDir, 'down-tagssh.bin')),
        scp: () => scp(`${at}:${remoteSrc}`, join(localDir, 'down-scp.bin')),
        sftp: () => sftp(`get ${remoteSrc} ${join(localDir, 'down-sftp.bin')}`),
        check: () => [join(localDir, 'down-tagssh.bin'), join(localDir, 'down-scp.bin'), join(localDir, 'down-sftp.bin')],
      },
    };
    for (const [direction, c] of Object.entries(cases)) {
      ctx.log(`${direction} ${mib} MiB × ${runs}`);
      const times = { tagssh: [], scp: [], sftp: [] };
      for (let i = 0; i < runs; i++) {
        // Round-robin, so load from elsewhere on the machine hits every client alike.
        for (const tool of ['tagssh', 'scp', 'sftp']) times[tool].push((await c[tool]()).ms);
      }
      for (const f of c.check()) {
        if (sha(f) !== want) throw new Error(`${f}: the copy differs from the source`);
        rmSync(f);
      }
      const rate = (ms) => mib / (ms / 1000);
      const ours = rate(med(times.tagssh));
      for (const tool of ['scp', 'sftp']) {
        const theirs = rate(med(times[tool]));
        rows.push({
          name: `${direction} ${mib} MiB, whole command (${CIPHER})`,
          tagssh: { value: ours, unit: 'MiB/s' },
          incumbent: { value: theirs, unit: 'MiB/s', label: tool },
          ratio: ours / theirs,
          target: `>= 1.0x of ${tool}`,
          pass: ours / theirs >= 1.0,
          note: `median of ${runs} round-robin runs; wall time from process start to exit (tagssh also resolves the Name through EC2); sha256 checked`,
        });
      }
    }

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
