// SSH: `tagssh ssh NAME -- COMMAND` against OpenSSH `ssh` — same sshd, same key, same cipher.
//
// connect + `true`: the whole CLI, name resolved through EC2 (moto), handshake, auth, exec, exit,
//   next to `ssh -i key user@address true` (host key already known to both).
// stream 512 MiB: `head -c 512M /dev/zero` on the remote, read to the end by the bench process
//   through each client's stdout pipe; MiB/s from the first byte to the end of the stream.
//   Both use aes128-gcm@openssh.com (TagSSH's first choice with the native binding; OpenSSH's
//   default, chacha20-poly1305, is slower on AES-NI machines and would flatter TagSSH).
// peak memory: VmHWM of the tagssh process during the stream (polled from /proc).
import { spawn } from 'node:child_process';
import { setInterval, clearInterval } from 'node:timers';
import { readFileSync } from 'node:fs';
import { startSshLab } from '../lib/sshLab.mjs';

export const title = 'SSH: connect-and-run, 512 MiB stream (vs OpenSSH ssh)';

const ADDRESS = '127.0.0.30';
const CIPHER = 'aes128-gcm@openssh.com';

/** Runs a command, counts its stdout bytes, and tracks its peak RSS. */
function streamRun(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let first = 0;
    let stderr = '';
    let peakKiB = 0;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKiB = Math.max(peakKiB, Number(m[1]));
      } catch {
        /* exited */
      }
    }, 50);
    child.stdout.on('data', (c) => {
      if (bytes === 0) first = performance.now();
      bytes += c.length;
    });
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      const ms = performance.now() - t0;
      if (code !== 0) return reject(new Error(`${cmd} exited ${code}: ${stderr.slice(0, 300)}`));
      // Transfer time: first byte to the end of the stream (connecting is the other row's job).
      resolve({ ms, transferMs: performance.now() - first, bytes, peakKiB });
    });
  });
}

export async function run(ctx) {
  const lab = await startSshLab(ctx, { address: ADDRESS, prefix: 'tagssh-bench-ssh-', name: 'bench-ssh' });
  const { key, host, env } = lab;
  const rows = [];
  try {
    const node = process.execPath;
    const tagssh = (extra, cmd) => [ctx.tagssh, 'ssh', 'bench-ssh', '-i', key.privatePath, ...extra, '--', ...cmd];
    const ssh = (cmd, extra = []) => [...lab.opensshArgs, ...extra, '-p', String(host.port), lab.login, ...cmd];
    // First contact for both (host key trusted), outside the timings.
    await ctx.spawnTimed(node, tagssh(['--accept-new'], ['true']), env);
    await ctx.spawnTimed('ssh', ssh(['true']), env);

    ctx.log('connect + true');
    const runs = Math.max(5, ctx.runs);
    const ours = await ctx.median(async () => (await ctx.spawnTimed(node, tagssh([], ['true']), env)).ms, runs);
    const theirs = await ctx.median(async () => (await ctx.spawnTimed('ssh', ssh(['true']), env)).ms, runs);
    const ratio = ours.median_ms / theirs.median_ms;
    rows.push({
      name: 'connect + run `true` (tagssh resolves the Name via EC2)',
      tagssh: { median_ms: ours.median_ms },
      incumbent: { median_ms: theirs.median_ms, label: 'ssh' },
      ratio,
      target: '<= 1.2x of ssh',
      pass: ratio <= 1.2,
    });

    const mib = ctx.quick ? 64 : 512;
    ctx.log(`stream ${mib} MiB`);
    const streamRuns = ctx.quick ? 1 : 5;
    const remote = [`head -c ${mib}M /dev/zero`];
    let peakKiB = 0;
    const oursStream = [];
    const theirsStream = [];
    for (let i = 0; i < streamRuns; i++) {
      // Interleaved, so machine noise hits both alike.
      const a = await streamRun(node, tagssh([], remote), env);
      if (a.bytes !== mib * 1048576) throw new Error(`tagssh streamed ${a.bytes} bytes`);
      oursStream.push(a.bytes / 1048576 / (a.transferMs / 1000));
      peakKiB = Math.max(peakKiB, a.peakKiB);
      const b = await streamRun('ssh', ssh(remote, ['-c', CIPHER]), env);
      if (b.bytes !== mib * 1048576) throw new Error(`ssh streamed ${b.bytes} bytes`);
      theirsStream.push(b.bytes / 1048576 / (b.transferMs / 1000));
    }
    const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const tput = med(oursStream);
    const tputSsh = med(theirsStream);
    rows.push({
      name: `stream ${mib} MiB (head -c ${mib}M /dev/zero), ${CIPHER}`,
      tagssh: { value: tput, unit: 'MiB/s' },
      incumbent: { value: tputSsh, unit: 'MiB/s', label: 'ssh' },
      ratio: tput / tputSsh,
      target: '>= 0.8x of ssh',
      pass: tput / tputSsh >= 0.8,
      note: `median of ${streamRuns} interleaved runs each; MiB/s from the first byte to the end of the stream (connect time is the row above)`,
    });
    rows.push({
      name: `peak RSS of the tagssh CLI during the ${mib} MiB stream`,
      tagssh: { value: peakKiB / 1024, unit: 'MiB' },
      incumbent: null,
      note: 'VmHWM polled from /proc every 50 ms; output flows through with backpressure (SSH window 2 MiB)',
    });
  } finally {
    await lab.stop();
  }
  return rows;
}
