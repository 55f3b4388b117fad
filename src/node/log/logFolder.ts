import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync, lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from '../../common/errors.js';
import type { LogEntry } from '../../common/log/contract.js';
import { escapeControls } from '../../common/safeText.js';
import { logDir } from './sessionLog.js';

// The log folder as the app's Logs view sees it: every session log (.log, .txt) and recording
// (.cast) directly in the folder Settings › Session logs names, with what its header says (instance,
// Name, region, start) so the view can filter by them. Only files in that folder are ever read or
// revealed, by name: a name with a separator, a link leading elsewhere, or anything not a regular
// file is refused.

const MAX_LISTED = 5000;
const HEAD_BYTES = 8192;

export function folderOf(setting: string | null): string {
  return setting ?? logDir();
}

function head(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function fromTextHeader(text: string): Pick<LogEntry, 'instanceId' | 'name' | 'region' | 'started'> {
  const field = (k: string) => {
    const v = new RegExp(`^# ${k}: (.*)$`, 'm').exec(text)?.[1];
    return v === undefined || v === '-' ? null : v;
  };
  return { instanceId: field('Instance'), name: field('Name'), region: field('Region'), started: field('Started') };
}

function fromCastHeader(text: string): Pick<LogEntry, 'instanceId' | 'name' | 'region' | 'started'> {
  try {
    const h = JSON.parse(text.slice(0, text.indexOf('\n'))) as { timestamp?: number; title?: string; tagssh?: Record<string, string | null> };
    const t = h.tagssh ?? {};
    return {
      instanceId: t.instanceId ?? null,
      name: t.name ?? h.title ?? null,
      region: t.region ?? null,
      started: t.started ?? (typeof h.timestamp === 'number' ? new Date(h.timestamp * 1000).toISOString() : null),
    };
  } catch {
    return { instanceId: null, name: null, region: null, started: null };
  }
}

export function kindOfLog(file: string): LogEntry['kind'] | null {
  return /\.cast$/i.test(file) ? 'cast' : /\.(log|txt)$/i.test(file) ? 'text' : null;
}

/** The session logs and recordings in `folder`, newest first (a missing folder lists nothing). */
export function listLogs(folder: string): LogEntry[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new AppError(
      'INVALID_INPUT',
      `Cannot read the log folder ${escapeControls(folder)}: ${(e as NodeJS.ErrnoException).code}.`,
      'Choose another folder in Settings › Session logs.',
    );
  }
  const out: LogEntry[] = [];
  for (const file of names) {
    const kind = kindOfLog(file);
    if (!kind) continue;
    const p = join(folder, file);
    let st;
    try {
      st = lstatSync(p);
      if (!st.isFile()) continue;
      const facts = kind === 'cast' ? fromCastHeader(head(p)) : fromTextHeader(head(p));
      out.push({ file, kind, size: st.size, mtime: st.mtimeMs, ...facts });
    } catch {
      continue; // vanished or unreadable: not listed
    }
  }
  return out.sort((a, b) => b.mtime - a.mtime).slice(0, MAX_LISTED);
}

/** The path of one log in the folder, by its name; anything else is refused. */
export function logPathOf(folder: string, file: string): string {
  const bad = () => new AppError('NOT_FOUND', `No log named ${escapeControls(file)} in ${escapeControls(folder)}.`, 'Refresh the list of logs.');
  if (!file || /[/\\\0]/.test(file) || file === '.' || file === '..' || !kindOfLog(file)) throw bad();
  const p = join(folder, file);
  try {
    if (!lstatSync(p).isFile() || dirname(realpathSync(p)) !== realpathSync(folder)) throw bad();
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw bad();
  }
  return p;
}

/** A log's text, at most `maxBytes` of it (the start, where the header is). */
export function readLog(folder: string, file: string, maxBytes: number): { text: string; truncated: boolean } {
  const p = logPathOf(folder, file);
  const size = statSync(p).size;
  const fd = openSync(p, 'r');
  try {
    const n = Math.min(size, maxBytes);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, 0);
    return { text: buf.toString('utf8'), truncated: size > maxBytes };
  } finally {
    closeSync(fd);
  }
}
