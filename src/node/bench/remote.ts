import { AppError } from '../../common/errors.js';
import { shQuote } from '../../common/shell.js';
import type { SshConnection } from '../ssh/connection.js';

// A benchmark run on one host, always detached from the SSH session: the script is written to a
// private run directory (/tmp/tagssh-<runId>, mode 700, created with mkdir so an existing one is
// refused), started with setsid (its own session and process group, so a dropped connection does
// not kill it and a cancel can kill the whole group), with stdout/stderr going to files. The
// runner follows those files with `tail --pid` and can re-attach later from another connection.

/** Exit status of the follow command when the run ended without writing its exit file (killed). */
const NO_EXIT_FILE = 199;

export function runDirFor(runId: string): string {
  if (!/^[a-z0-9-]{6,64}$/.test(runId)) throw new AppError('INVALID_INPUT', `"${runId}" is not a TagSSH run id.`);
  return `/tmp/tagssh-${runId}`;
}

async function must(conn: SshConnection, cmd: string, what: string, stdin?: string | Buffer, signal?: AbortSignal): Promise<string> {
  const r = await conn.exec(cmd, { ...(stdin !== undefined ? { stdin } : {}), ...(signal ? { signal } : {}) });
  if (r.code !== 0)
    throw new AppError(
      'REMOTE_FAILED',
      `Could not ${what}: ${(r.stderr.trim().split('\n').pop() ?? '') || `exit ${r.code ?? r.signal}`}.`,
      'Check that /tmp is writable on the instance.',
    );
  return r.stdout;
}

/** Uploads a file into the run directory (creating the directory). */
export async function uploadToRun(conn: SshConnection, runDir: string, name: string, data: Buffer, signal?: AbortSignal): Promise<void> {
  const d = shQuote(runDir);
  await must(conn, `umask 077 && { [ -d ${d} ] || mkdir ${d}; } && cat > ${d}/${shQuote(name)}`, `upload ${name}`, data, signal);
}

/** Exit status of startAndFollow when the run directory or script could not be set up. */
const SETUP_FAILED = 197;

const followTail = (d: string) =>
  `pid=$(cat ${d}/pid); tail -c +1 -s 0.2 -f --pid="$pid" ${d}/err >&2 & t=$!; tail -c +1 -s 0.2 -f --pid="$pid" ${d}/out; wait "$t"; [ -f ${d}/exit ] && exit "$(cat ${d}/exit)"; exit ${NO_EXIT_FILE}`;

/**
 * Writes the script, starts it detached and follows it — all in one exec (one round trip and one
 * remote shell less per host than startRun + followRun). Same semantics as those two.
 */
export async function startAndFollow(
  conn: SshConnection,
  runDir: string,
  script: string,
  on: { stdout(c: Buffer): void; stderr(c: Buffer): void },
  signal?: AbortSignal,
  existingDir = false,
): Promise<FollowResult> {
  const d = shQuote(runDir);
  const mk = existingDir ? `{ [ -d ${d} ] || mkdir ${d}; }` : `mkdir ${d}`;
  const cmd = `{ umask 077 && ${mk} && cd ${d} && cat > run.sh; } || exit ${SETUP_FAILED}; ${launch(d)}; ${followTail(d)}`;
  const r = await conn.exec(cmd, { stdin: script, onStdout: on.stdout, onStderr: on.stderr, ...(signal ? { signal } : {}) });
  if (r.code === SETUP_FAILED)
    throw new AppError(
      'REMOTE_FAILED',
      `Could not set up the run directory ${runDir} on ${conn.target.label}.`,
      'Check that /tmp is writable on the instance.',
    );
  return { exitCode: r.code === NO_EXIT_FILE ? null : r.code };
}

/** Writes the script and starts it detached; returns the pid (= process group id). */
export async function startRun(conn: SshConnection, runDir: string, script: string, existingDir = false, signal?: AbortSignal): Promise<number> {
  const d = shQuote(runDir);
  const mk = existingDir ? `{ [ -d ${d} ] || mkdir ${d}; }` : `mkdir ${d}`;
  const cmd = `umask 077 && ${mk} && cd ${d} && cat > run.sh && ${launch(d)} && cat ${d}/pid`;
  const out = await must(conn, cmd, 'start the benchmark script', script, signal);
  const pid = Number(out.trim());
  if (!Number.isInteger(pid) || pid <= 1) throw new AppError('REMOTE_FAILED', `The benchmark script did not start (pid "${out.trim()}").`);
  return pid;
}

/**
 * Starts ./run.sh (in the current dir, the run dir `d`) detached in its own session. `out` and
 * `err` are created first: the background shell opens them only after it forks, and a follower
 * that starts at once must not find them missing.
 */
function launch(d: string): string {
  return `: > out && : > err && if command -v setsid >/dev/null 2>&1; then setsid sh ./run.sh > out 2> err < /dev/null & else nohup sh ./run.sh > out 2> err < /dev/null & fi; echo $! > ${d}/pid`;
}

interface FollowResult {
  /** The script's exit status; null when it was killed before it could record one. */
  exitCode: number | null;
}

/**
 * Streams the run's stdout/stderr from the start until the process ends. Rejects when the
 * connection drops (the run keeps going on the host) or the signal aborts.
 */
export async function followRun(
  conn: SshConnection,
  runDir: string,
  on: { stdout(c: Buffer): void; stderr(c: Buffer): void },
  signal?: AbortSignal,
): Promise<FollowResult> {
  const d = shQuote(runDir);
  const cmd = `cd ${d} 2>/dev/null || exit 198; pid=$(cat pid); tail -c +1 -s 0.2 -f --pid="$pid" err >&2 & t=$!; tail -c +1 -s 0.2 -f --pid="$pid" out; wait "$t"; [ -f exit ] && exit "$(cat exit)"; exit ${NO_EXIT_FILE}`;
  const r = await conn.exec(cmd, { onStdout: on.stdout, onStderr: on.stderr, ...(signal ? { signal } : {}) });
  if (r.code === 198)
    throw new AppError(
      'NOT_FOUND',
      `The run directory ${runDir} is gone on ${conn.target.label}.`,
      'The run was cleaned up or the instance rebooted; run the benchmark again.',
    );
  return { exitCode: r.code === NO_EXIT_FILE ? null : r.code };
}

/** Kills the run's process group (TERM, then KILL), runs extra cleanup, removes the run dir. */
export async function stopRun(conn: SshConnection, runDir: string, extraCleanup = ''): Promise<void> {
  const d = shQuote(runDir);
  const cmd = `if [ -f ${d}/pid ]; then pid=$(cat ${d}/pid); kill -TERM -"$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null; i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; kill -KILL -"$pid" 2>/dev/null; fi; ${extraCleanup ? `{ ${extraCleanup}; } 2>/dev/null;` : ''} rm -rf -- ${d}`;
  await conn.exec(cmd);
}

/** Removes the run dir of a finished run. */
export async function removeRun(conn: SshConnection, runDir: string): Promise<void> {
  await conn.exec(`rm -rf -- ${shQuote(runDir)}`);
}
