// Tests and benchmarks must never send traffic beyond loopback (moto, for one, hands started
// instances random public IPs). When possible, re-run the current script inside a fresh network
// namespace that has only `lo`: there, any other address fails with ENETUNREACH.
import { spawnSync } from 'node:child_process';

const MARK = 'TAGSSH_NETNS';

/** Re-executes this process inside a loopback-only network namespace; returns only if it can't. */
export function reexecInLoopbackNamespace() {
  if (process.env[MARK] || process.platform !== 'linux' || process.env.TAGSSH_NO_NETNS === '1') return;
  const inner = `ip link set lo up && exec "$0" "$@"`;
  const argv = [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
  const env = { ...process.env, [MARK]: '1' };
  const isRoot = process.getuid?.() === 0;
  // As root a plain net namespace; otherwise try an unprivileged user+net namespace.
  const unshareArgs = isRoot ? ['--net'] : ['--map-root-user', '--net'];
  const probe = spawnSync('unshare', [...unshareArgs, 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' });
  if (probe.status !== 0) {
    console.error('note: could not create a loopback-only network namespace (unshare); running without it.');
    return;
  }
  const r = spawnSync('unshare', [...unshareArgs, 'sh', '-c', inner, ...argv], { stdio: 'inherit', env });
  process.exit(r.status ?? 1);
}
