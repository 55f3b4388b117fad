import type { Stats } from 'ssh2';
import type { SftpOps } from './sftpOps.js';

// One open remote file, read and written at positions: for callers that move a file in pieces
// of their own (the app's file panel gets and sends bytes in chunks) rather than copying a
// local file whole. Errors name `path`.

// A piece is split into requests the server takes in one packet, all sent at once: one round
// trip per piece rather than one per 32 KiB.
const REQUEST_BYTES = 32 * 1024;

export class RemoteFile {
  constructor(
    private readonly ops: SftpOps,
    private readonly handle: Buffer,
    readonly path: string,
  ) {}

  stat(): Promise<Stats> {
    return this.ops.fstat(this.handle, this.path);
  }

  async writeAt(data: Buffer, position: number): Promise<void> {
    const parts: Promise<void>[] = [];
    for (let at = 0; at < data.length; at += REQUEST_BYTES)
      parts.push(this.ops.write(this.handle, data, at, Math.min(REQUEST_BYTES, data.length - at), position + at, this.path));
    await Promise.all(parts);
  }

  /** Reads `length` bytes from `position` (fewer only at the end of the file). */
  async readAt(position: number, length: number): Promise<Buffer> {
    const piece = async (at: number, len: number): Promise<Buffer> => {
      const buf = Buffer.allocUnsafe(len);
      let got = 0;
      while (got < len) {
        // SFTP answers a read at the end with EOF (status 1), which is no error here.
        const n = await this.ops.read(this.handle, buf, got, len - got, at + got, this.path).catch((e: unknown) => {
          if ((e as { code?: unknown }).code === 1 || /EOF|end of file/i.test((e as Error).message)) return 0;
          throw e;
        });
        if (!n) break;
        got += n;
      }
      return buf.subarray(0, got);
    };
    const parts: Promise<Buffer>[] = [];
    for (let at = 0; at < length; at += REQUEST_BYTES) parts.push(piece(position + at, Math.min(REQUEST_BYTES, length - at)));
    return Buffer.concat(await Promise.all(parts));
  }

  close(): Promise<void> {
    return this.ops.close(this.handle, this.path);
  }
}
