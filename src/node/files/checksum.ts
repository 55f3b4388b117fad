import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { shQuote } from '../../common/shell.js';
import type { SshConnection } from '../ssh/connection.js';
import type { SftpOps } from './sftpOps.js';

// SHA-256 of a file's first `length` bytes, on either side: how `--resume` proves that a partial
// copy really is a prefix of its source before continuing it.

export async function localPrefixHash(path: string, length: number): Promise<string> {
  const h = createHash('sha256');
  if (length > 0) for await (const chunk of createReadStream(path, { start: 0, end: length - 1 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/**
 * Hashed on the server (`head -c | sha256sum` — nothing crosses the network but the digest);
 * where that is unavailable, over SFTP reads.
 */
export async function remotePrefixHash(conn: SshConnection, ops: SftpOps, path: string, length: number, signal?: AbortSignal): Promise<string> {
  try {
    const r = await conn.exec(`head -c ${length} -- ${shQuote(path)} | sha256sum`, signal ? { signal } : {});
    const m = /^([0-9a-f]{64})\b/.exec(r.stdout);
    if (r.code === 0 && m) return m[1]!;
  } catch {
    /* no exec channel (an SFTP-only account): hash over SFTP below */
  }
  const h = createHash('sha256');
  const handle = await ops.open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(256 * 1024);
    for (let pos = 0; pos < length;) {
      const n = await ops.read(handle, buf, 0, Math.min(buf.length, length - pos), pos, path);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
      pos += n;
    }
  } finally {
    await ops.close(handle, path).catch(() => undefined);
  }
  return h.digest('hex');
}
