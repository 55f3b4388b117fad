import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { AppError } from '../../common/errors.js';
import { tarballProblem, UNIXBENCH_MAX_TARBALL_BYTES } from '../../common/bench/unixbench.js';

// The one local file a benchmark may send to an instance (UnixBench's source=upload). Only a
// regular .tar.gz of bounded size: never a device (/dev/zero would be read for ever), a FIFO
// (the open would hang), a directory, or a private key picked by mistake or by a forged request.

export interface Tarball {
  /** The file name as the person knows it (shown in confirmations and saved with the result). */
  name: string;
  data: Buffer;
}

function refuse(what: string, why: string): AppError {
  return new AppError('INVALID_INPUT', `${what} ${why}.`, 'Give a byte-unixbench .tar.gz (source=upload), or use source=git or source=tarball.');
}

/** Checks bytes that arrived from the app (picked by the person in a file dialog). */
export function checkTarball(t: Tarball, what = `The file ${t.name}`): Tarball {
  const problem = tarballProblem(t.data.length, t.data.subarray(0, 2));
  if (problem) throw refuse(what, problem);
  return t;
}

/** Reads a tarball the CLI user named: checked on the open descriptor, so a swap cannot slip in. */
export async function readLocalTarball(path: string): Promise<Tarball> {
  if (!path) throw new AppError('INVALID_INPUT', 'source=upload needs localTarball (a .tar.gz on this computer).', 'Pass --param localTarball=PATH.');
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((e: NodeJS.ErrnoException) => {
    throw new AppError('NOT_FOUND', `Cannot read ${path}: ${e.code === 'ENOENT' ? 'no such file' : (e.code ?? e.message)}.`, 'Give the path of a byte-unixbench .tar.gz.');
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw refuse(path, st.isDirectory() ? 'is a directory, not a file' : 'is not a regular file');
    if (st.size > UNIXBENCH_MAX_TARBALL_BYTES) throw refuse(path, tarballProblem(st.size, new Uint8Array([0x1f, 0x8b]))!);
    // Reads at most one byte past the limit, whatever the file grows to meanwhile.
    const buf = Buffer.alloc(UNIXBENCH_MAX_TARBALL_BYTES + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0 || n + bytesRead >= buf.length) {
        n += bytesRead;
        break;
      }
      n += bytesRead;
    }
    return checkTarball({ name: path, data: buf.subarray(0, n) }, path);
  } finally {
    await fh.close();
  }
}
