import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { AppError } from '../../common/errors.js';
import type { LocalUpload } from '../../common/bench/types.js';
import { unixbenchUpload } from '../../common/bench/presets/unixbench.js';

// The local file a benchmark may send to an instance (a preset's upload hook, e.g. UnixBench's
// source=upload tarball). Only a regular file of bounded size that the preset's own check
// accepts: never a device (/dev/zero would be read for ever), a FIFO (the open would hang), a
// directory, or a private key picked by mistake or by a forged request.

export interface UploadFile {
  /** The file name as the person knows it (shown in confirmations and saved with the result). */
  name: string;
  data: Buffer;
}

function refuse(u: LocalUpload, what: string, why: string): AppError {
  return new AppError('INVALID_INPUT', `${what} ${why}.`, u.words.refusedHint);
}

/** The preset's words for a file over its limit; the limit holds even if its check forgets it. */
function sizeProblem(u: LocalUpload, size: number): string | undefined {
  return size > u.maxBytes ? (u.problem(size) ?? `is over the limit of ${u.maxBytes} bytes`) : undefined;
}

/** Checks bytes that arrived from the app (picked by the person in a file dialog). */
export function checkUpload(u: LocalUpload, f: UploadFile, what = `The file ${f.name}`): UploadFile {
  const problem = sizeProblem(u, f.data.length) ?? u.problem(f.data.length, f.data.subarray(0, 2));
  if (problem) throw refuse(u, what, problem);
  return f;
}

/** Reads the file a CLI user named: checked on the open descriptor, so a swap cannot slip in. */
export async function readUpload(u: LocalUpload): Promise<UploadFile> {
  const path = u.path;
  if (!path) throw new AppError('INVALID_INPUT', u.words.noPath.message, u.words.noPath.hint);
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((e: NodeJS.ErrnoException) => {
    throw new AppError('NOT_FOUND', `Cannot read ${path}: ${e.code === 'ENOENT' ? 'no such file' : (e.code ?? e.message)}.`, u.words.unreadableHint);
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw refuse(u, path, st.isDirectory() ? 'is a directory, not a file' : 'is not a regular file');
    const tooLarge = sizeProblem(u, st.size);
    if (tooLarge) throw refuse(u, path, tooLarge);
    // Reads at most one byte past the limit, whatever the file grows to meanwhile.
    const buf = Buffer.alloc(u.maxBytes + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0 || n + bytesRead >= buf.length) {
        n += bytesRead;
        break;
      }
      n += bytesRead;
    }
    return checkUpload(u, { name: path, data: buf.subarray(0, n) }, path);
  } finally {
    await fh.close();
  }
}

/** UnixBench's tarball from a path (the CLI's source=upload, read through the preset's own upload). */
export function readLocalTarball(path: string): Promise<UploadFile> {
  return readUpload(unixbenchUpload(path));
}
