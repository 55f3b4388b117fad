import { readdirSync, readFileSync, renameSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../common/errors.js';
import { ensurePrivateDir } from './paths.js';
import { isProcessAlive } from './fileLock.js';

// Versioned JSON files written atomically (temp file + rename), so a crash or a concurrent
// reader never sees half a file. A file from a newer schema is refused rather than clobbered.

interface Versioned<T> {
  schemaVersion: number;
  data: T;
}

export function readJsonFile<T>(path: string, schemaVersion: number, fallback: () => T, validate?: (raw: unknown) => T): T {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return fallback();
    throw e;
  }
  let parsed: Versioned<unknown>;
  try {
    parsed = JSON.parse(text) as Versioned<unknown>;
  } catch {
    throw new AppError('INVALID_INPUT', `${path} is not valid JSON.`, 'Fix or move the file aside; TagSSH will not overwrite it while it is unreadable.');
  }
  if (typeof parsed?.schemaVersion !== 'number' || !('data' in parsed)) {
    throw new AppError('INVALID_INPUT', `${path} is not a TagSSH file (no schemaVersion).`, 'Move the file aside and try again.');
  }
  if (parsed.schemaVersion > schemaVersion) {
    throw new AppError(
      'INVALID_INPUT',
      `${path} was written by a newer TagSSH (schema ${parsed.schemaVersion} > ${schemaVersion}).`,
      'Upgrade TagSSH; this version will not overwrite newer data.',
    );
  }
  return validate ? validate(parsed.data) : (parsed.data as T);
}

/** What writeJsonFile names its temp files: `<file>.<pid>.<8 hex>.tmp`. */
const TEMP_NAME = /^.+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

export function writeJsonFile<T>(path: string, schemaVersion: number, data: T, mode = 0o600): void {
  ensurePrivateDir(dirname(path));
  removeOrphanedTempFiles(path);
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify({ schemaVersion, data } satisfies Versioned<T>, null, 2) + '\n', { mode });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * A writer killed between its temp write and the rename leaves `<file>.<pid>.<hex>.tmp` behind.
 * The next write into the same directory removes those whose process is gone (results are one
 * file per run, so waiting for the same file to be written again would keep them for ever); a
 * live writer's temp file is left alone.
 */
function removeOrphanedTempFiles(path: string): void {
  const dir = dirname(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    rmSync(join(dir, name), { force: true });
  }
}
