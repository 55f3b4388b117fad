import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { AppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';
import { detectEncoding, type TextEncoding } from '../../common/import/encoding.js';
import { kindOf, type ImportFile } from '../../common/import/scan.js';

// The files of an import, read and decoded: a FILE (with the macros beside it, for its includes)
// or a DIR (every macro, batch file, shell script, TERATERM.INI, ssh_known_hosts and ssh config
// in it and below), or files a person picked in the app (sent as bytes). Bounded: a folder of
// logs or a link loop cannot make the import read without end.

const MAX_FILES = 2000;
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_DEPTH = 8;

/** Bytes → text the way Tera Term reads a macro (BOM, else UTF-8 when valid, else Shift_JIS). */
export function decode(bytes: Uint8Array): { text: string; encoding: TextEncoding } {
  const encoding = detectEncoding(bytes);
  const label = encoding === 'utf-8-bom' ? 'utf-8' : encoding;
  // TextDecoder drops a BOM itself; fatal:false turns stray bytes into U+FFFD rather than failing.
  return { text: new TextDecoder(label).decode(bytes), encoding };
}

function readOne(path: string, shown: string, scan: boolean): ImportFile | null {
  const st = statSync(path);
  if (!st.isFile() || st.size > MAX_FILE_BYTES) return null;
  const { text, encoding } = decode(readFileSync(path));
  return { path: shown, text, encoding, scan };
}

/** Files shown with `/` separators, relative to the folder imported (absolute for other places). */
function shownPath(path: string, root: string): string {
  const rel = relative(root, path);
  return (rel && !rel.startsWith('..') ? rel : path).split(sep).join('/');
}

function walk(dir: string, root: string, depth: number, out: ImportFile[], seen: Set<string>): void {
  if (depth > MAX_DEPTH || out.length >= MAX_FILES) return;
  const real = realpathSync(dir);
  if (seen.has(real)) return;
  seen.add(real);
  for (const name of readdirSync(dir).sort()) {
    if (out.length >= MAX_FILES) return;
    const p = join(dir, name);
    let st;
    try {
      st = lstatSync(p);
      if (st.isSymbolicLink()) st = statSync(p);
    } catch {
      continue; // a dangling link
    }
    if (st.isDirectory()) {
      if (!name.startsWith('.') || name === '.ssh') walk(p, root, depth + 1, out, seen);
    } else if (st.isFile() && st.size <= MAX_FILE_BYTES) {
      const f = readOne(p, shownPath(p, root), true);
      if (f && kindOf(f.path, f.text)) out.push(f);
    }
  }
}

/** Reads FILE|DIR arguments. A FILE is scanned; the macros and settings beside it are read for its includes. */
export function readImportPaths(paths: readonly string[]): ImportFile[] {
  const out: ImportFile[] = [];
  for (const given of paths) {
    const path = resolve(given);
    let st;
    try {
      st = statSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new AppError(
        'NOT_FOUND',
        `Cannot read ${escapeControls(given)}: ${code === 'ENOENT' ? 'no such file or folder' : code}.`,
        'Name a Tera Term macro, a batch file, TERATERM.INI, ssh_known_hosts, an ssh config or a folder of them.',
      );
    }
    if (st.isDirectory()) {
      walk(path, path, 0, out, new Set());
      continue;
    }
    if (st.size > MAX_FILE_BYTES)
      throw new AppError(
        'INVALID_INPUT',
        `${escapeControls(given)} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB.`,
        'Name the macro or batch file itself.',
      );
    const root = dirname(path);
    const f = readOne(path, basename(path), true);
    if (f) out.push(f);
    // Include targets: the other macros and settings in the same folder, read but not scanned.
    for (const name of readdirSync(root).sort()) {
      if (name === basename(path) || out.length >= MAX_FILES) continue;
      const p = join(root, name);
      try {
        const g = readOne(p, name, false);
        if (g && kindOf(g.path, g.text)) out.push(g);
      } catch {
        /* unreadable neighbours are not this import's business */
      }
    }
  }
  if (!out.some((f) => f.scan)) {
    throw new AppError(
      'NOT_FOUND',
      `No Tera Term macro, batch file, shell script, TERATERM.INI, ssh_known_hosts or ssh config in ${escapeControls(paths.join(', '))}.`,
      'Name .ttl, .bat, .cmd or .sh files, TERATERM.INI, ssh_known_hosts, ~/.ssh/config, or a folder that holds them.',
    );
  }
  return out;
}

/** Files a person picked in the app: their relative paths and bytes. */
export function readUploads(files: ReadonlyArray<{ path: string; bytes: Uint8Array }>): ImportFile[] {
  const out: ImportFile[] = [];
  for (const f of files.slice(0, MAX_FILES)) {
    if (f.bytes.length > MAX_FILE_BYTES) continue;
    // The browser's relative path (folder/file.ttl); nothing in it is used to touch this machine's files.
    const path = f.path.replace(/\\/g, '/').replace(/^\/+/, '');
    const { text, encoding } = decode(f.bytes);
    out.push({ path, text, encoding, scan: kindOf(path, text) !== null });
  }
  if (!out.some((f) => f.scan)) {
    throw new AppError(
      'NOT_FOUND',
      'None of the chosen files is a Tera Term macro, batch file, shell script, TERATERM.INI, ssh_known_hosts or ssh config.',
      'Choose .ttl, .bat, .cmd or .sh files, or a folder that holds them.',
    );
  }
  return out;
}
