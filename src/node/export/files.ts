import { chmodSync, copyFileSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { AppError } from '../../common/errors.js';
import { replaceManagedBlock } from '../../common/export/sshConfig.js';
import type { ExportFile } from '../../common/export/teraterm.js';

// The file side of exports: macros written as UTF-8 without a BOM, and the managed block merged
// into an ssh config atomically (temp file + rename, same mode), after a backup of the old file.

function atomicWrite(path: string, content: string, mode: number): void {
  const tmp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tagssh.tmp`);
  try {
    writeFileSync(tmp, content, { encoding: 'utf8', mode });
    chmodSync(tmp, mode); // the umask must not widen or narrow what the user had
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new AppError(
      'EXPORT_INVALID',
      `Cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`,
      'Check the directory exists and is writable.',
    );
  }
}

/** Writes each macro into dir; returns the paths written. */
export function writeExportFiles(dir: string, files: readonly ExportFile[]): string[] {
  mkdirSync(dir, { recursive: true });
  return files.map((f) => {
    if (f.fileName.includes('/') || f.fileName.includes('\\') || f.fileName.startsWith('.')) {
      throw new AppError('EXPORT_INVALID', `Refusing to write the file name ${JSON.stringify(f.fileName)}.`, 'This is a bug in TagSSH; please report it.');
    }
    const path = join(dir, f.fileName);
    atomicWrite(path, f.content.replace(/^\ufeff/, ''), 0o644);
    return path;
  });
}

interface SshConfigWrite {
  path: string;
  /** The whole new file content. */
  content: string;
  changed: boolean;
  /** Where the previous content was saved (undefined when nothing was written or there was no file). */
  backup?: string;
}

/**
 * Merges the managed block into the ssh config at `path` (created if missing, mode 0600, in a
 * 0700 directory). A symlinked config (dotfile managers) is written through to its target.
 */
export function writeSshConfigBlock(path: string, block: string, opts: { dryRun?: boolean } = {}): SshConfigWrite {
  let real = path;
  let existing = '';
  let mode = 0o600;
  try {
    real = realpathSync(path);
    existing = readFileSync(real, 'utf8');
    mode = statSync(real).mode & 0o777;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new AppError('EXPORT_INVALID', `Cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`, 'Check the file permissions.');
    }
  }
  const existed = real !== path || existing !== '' || fileExists(real);
  const content = replaceManagedBlock(existing, block);
  const out: SshConfigWrite = { path: real, content, changed: content !== existing };
  if (opts.dryRun || !out.changed) return out;
  mkdirSync(dirname(real), { recursive: true, mode: 0o700 });
  if (existed) {
    out.backup = `${real}.tagssh-backup`;
    copyFileSync(real, out.backup);
    chmodSync(out.backup, mode & 0o700);
  }
  atomicWrite(real, content, mode);
  return out;
}

function fileExists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}
