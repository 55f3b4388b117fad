import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../common/errors.js';

// A lock shared by every process that writes one file (the CLI, the app, several tabs): a lock
// file created with O_EXCL holding "pid host time". A holder that died (same host, pid gone) or
// that held it far longer than any read-modify-write takes leaves a stale lock, which the next
// writer breaks. Synchronous on purpose: the guarded sections are a read and a small rewrite.

const STALE_AFTER_MS = 30_000;
const WAIT_MS = 10_000;

const held = new Set<string>();

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** True while a process with this pid exists (EPERM: it exists but is another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why the lock at `lockPath` (whose content is `owner`) is stale, or null while its holder may still be working. */
function staleReason(owner: string, ageMs: number): string | null {
  const [pid, host] = owner.split(' ');
  if (host === hostname() && Number(pid) > 0 && !isProcessAlive(Number(pid))) return 'holder exited';
  if (ageMs > STALE_AFTER_MS) return 'held too long';
  // An empty file: its creator died between open and write. Give it a moment, then break it.
  if (owner === '' && ageMs > 1000) return 'empty';
  return null;
}

function tryBreak(lockPath: string, owner: string): void {
  const aside = `${lockPath}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return; // someone else broke or released it
  }
  // Between our look and the rename another process may have broken it and taken a fresh lock:
  // then put that one back (link fails if yet another lock exists, which is just as good).
  if (readFileSync(aside, 'utf8') !== owner) {
    try {
      linkSync(aside, lockPath);
    } catch {
      /* a newer lock is in place */
    }
  }
  rmSync(aside, { force: true });
}

/** Runs `body` holding `${path}.lock`; waits up to 10 s for another holder, breaking stale locks. */
export function withFileLock<T>(path: string, body: () => T): T {
  // Re-entrant within a process: a guarded section may call another one on the same file.
  if (held.has(path)) return body();
  const lockPath = `${path}.lock`;
  const owner = `${process.pid} ${hostname()} ${Date.now()}`;
  const deadline = Date.now() + WAIT_MS;
  let fd: number | undefined;
  let firstSeen: { owner: string; at: number } | undefined;
  for (;;) {
    try {
      fd = openSync(lockPath, 'wx', 0o600);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let current: string;
    try {
      current = readFileSync(lockPath, 'utf8');
    } catch {
      continue; // released between open and read: try again at once
    }
    // Age from the holder's own clock, or from when we first saw this exact content.
    const stamped = Number(current.split(' ')[2]);
    if (firstSeen?.owner !== current) firstSeen = { owner: current, at: Date.now() };
    const age = Number.isFinite(stamped) && stamped > 0 ? Date.now() - stamped : Date.now() - firstSeen.at;
    if (staleReason(current, age)) {
      tryBreak(lockPath, current);
      continue;
    }
    if (Date.now() > deadline) {
      throw new AppError(
        'TIMEOUT',
        `${path} is locked by another TagSSH process (${current || 'unknown'}).`,
        `If no TagSSH is running, delete ${lockPath} and try again.`,
      );
    }
    sleep(5 + Math.floor(Math.random() * 20));
  }
  try {
    writeSync(fd, owner);
  } finally {
    closeSync(fd);
  }
  held.add(path);
  try {
    return body();
  } finally {
    held.delete(path);
    // Release only our own lock (a holder judged stale after 30 s must not remove the next one's).
    try {
      if (readFileSync(lockPath, 'utf8') === owner) rmSync(lockPath, { force: true });
    } catch {
      /* already gone */
    }
  }
}
