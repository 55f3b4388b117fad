import { AppError, toAppError } from '../../common/errors.js';
import type { Emit, Parsed } from '../../common/contract.js';
import { FILE_CHUNK_BYTES, TRANSFER_MAX_BYTES } from '../../common/files/contract.js';
import { joinRemote, partNameOf } from '../../common/files/paths.js';
import type { FileSession, RemoteFile } from './index.js';
import { assertFree, panelError } from './panelSftp.js';

// The file panel's transfers (one set per UI connection). The renderer sends and fetches them in
// chunks; an upload is written under a temp name and renamed once its last byte is in, so a
// cancelled, failed or abandoned upload never looks like the file. A transfer nobody touches for
// `idleMs` is given up (the window went away).

interface Transfer {
  id: string;
  kind: 'upload' | 'download';
  files: FileSession;
  /** The open remote file (for an upload, the temp file). */
  file: RemoteFile;
  /** The file as the person named it. */
  path: string;
  /** Where an upload is written until it is complete. */
  part?: string;
  replace: boolean;
  size: number;
  bytes: number;
  /** Chunk numbers already written/read (each exactly once). */
  chunks: Set<number>;
  ended: boolean;
  timer?: NodeJS.Timeout;
}

/** An error about an upload's temp file, told about the file the person named (the temp name is ours). */
function aboutFinal(e: unknown, part: string, path: string): AppError {
  const err = toAppError(e);
  const details = err.details && typeof err.details === 'object' ? { ...(err.details as Record<string, unknown>), path } : { path };
  return new AppError(err.code, err.message.split(part).join(path), err.hint, details);
}

export class PanelTransfers {
  private readonly transfers = new Map<string, Transfer>();

  constructor(
    private readonly emit: Emit,
    private readonly idleMs: number,
  ) {}

  async upload(files: FileSession, { transferId, dir, name, size, replace }: Omit<Parsed<'files.upload'>, 'sessionId'>): Promise<null> {
    const path = joinRemote(dir, name);
    if (!replace) await assertFree(files, path);
    const part = joinRemote(dir, partNameOf(name, transferId));
    const file = await files.openFile(part, 'wx').catch((e: unknown) => {
      throw aboutFinal(e, part, path);
    });
    const t = this.create(transferId, { kind: 'upload', files, file, path, part, replace, size });
    this.emit('files.progress', { transferId, bytes: 0, total: size });
    if (size === 0) await this.finishUpload(t);
    return null;
  }

  async uploadChunk({ transferId, offset, data }: Parsed<'files.uploadChunk'>): Promise<{ received: number }> {
    const t = this.transferOf(transferId, 'upload');
    const { index, length } = this.chunkAt(t, offset);
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length !== length) throw new AppError('INVALID_INPUT', `Chunk ${index} of ${t.path} has ${bytes.length} bytes, expected ${length}.`);
    t.chunks.add(index);
    this.arm(t);
    try {
      await t.file.writeAt(bytes, offset);
    } catch (e) {
      return this.fail(t, aboutFinal(e, t.part!, t.path));
    }
    if (t.ended) throw new AppError('CANCELLED', `The upload of ${t.path} was cancelled.`);
    t.bytes += length;
    this.emit('files.progress', { transferId, bytes: t.bytes, total: t.size });
    if (t.bytes === t.size) await this.finishUpload(t);
    return { received: t.bytes };
  }

  async download(files: FileSession, { transferId, dir, name }: Omit<Parsed<'files.download'>, 'sessionId'>): Promise<{ size: number }> {
    const path = joinRemote(dir, name);
    const file = await files.openFile(path, 'r');
    let size: number;
    try {
      size = (await file.stat()).size;
      if (size > TRANSFER_MAX_BYTES)
        throw new AppError('INVALID_INPUT', `${path} is larger than the panel moves (${TRANSFER_MAX_BYTES / 1024 ** 3} GiB).`, 'Copy it with tagssh cp.');
    } catch (e) {
      await file.close().catch(() => {});
      throw e;
    }
    const t = this.create(transferId, { kind: 'download', files, file, path, replace: false, size });
    this.emit('files.progress', { transferId, bytes: 0, total: size });
    if (size === 0) await this.end(t, 'done');
    return { size };
  }

  async downloadChunk({ transferId, offset }: Parsed<'files.downloadChunk'>): Promise<{ data: string }> {
    const t = this.transferOf(transferId, 'download');
    const { index, length } = this.chunkAt(t, offset);
    t.chunks.add(index);
    this.arm(t);
    let data: Buffer;
    try {
      data = await t.file.readAt(offset, length);
    } catch (e) {
      return this.fail(t, e);
    }
    if (t.ended) throw new AppError('CANCELLED', `The download of ${t.path} was cancelled.`);
    if (data.length !== length) return this.fail(t, panelError('changed', t.path, `${t.path} changed while it was downloading.`));
    t.bytes += length;
    this.emit('files.progress', { transferId, bytes: t.bytes, total: t.size });
    if (t.bytes === t.size) await this.end(t, 'done');
    return { data: data.toString('base64') };
  }

  async cancel(transferId: string): Promise<{ cancelled: boolean }> {
    const t = this.transfers.get(transferId);
    if (!t) return { cancelled: false };
    await this.end(t, 'cancelled');
    return { cancelled: true };
  }

  private arm(t: Transfer): void {
    clearTimeout(t.timer);
    t.timer = setTimeout(() => void this.end(t, 'failed', new AppError('CANCELLED', `The transfer of ${t.path} stalled and was given up.`)), this.idleMs);
    t.timer.unref?.();
  }

  /** Ends a transfer once: closes the handle, removes an unfinished upload's temp file, tells the UI. */
  private async end(t: Transfer, outcome: 'done' | 'cancelled' | 'failed', error?: AppError): Promise<void> {
    if (t.ended) return;
    t.ended = true;
    clearTimeout(t.timer);
    this.transfers.delete(t.id);
    await t.file.close().catch(() => {});
    if (t.part && outcome !== 'done') await t.files.remove(t.part).catch(() => {});
    this.emit('files.done', { transferId: t.id, outcome, ...(error ? { error: error.toJSON() } : {}) });
  }

  private async fail(t: Transfer, e: unknown): Promise<never> {
    const err = toAppError(e);
    await this.end(t, 'failed', err);
    throw err;
  }

  private transferOf(id: string, kind: Transfer['kind']): Transfer {
    const t = this.transfers.get(id);
    if (!t || t.kind !== kind) throw new AppError('CANCELLED', 'That transfer is no longer running.', 'Start it again.');
    return t;
  }

  /** The chunk number at `offset` and its length; each chunk is taken exactly once. */
  private chunkAt(t: Transfer, offset: number): { index: number; length: number } {
    if (offset % FILE_CHUNK_BYTES !== 0 || (offset >= t.size && t.size > 0))
      throw new AppError('INVALID_INPUT', `Offset ${offset} is not a chunk of ${t.path}.`);
    const index = offset / FILE_CHUNK_BYTES;
    if (t.chunks.has(index)) throw new AppError('INVALID_INPUT', `Chunk ${index} of ${t.path} was already transferred.`);
    return { index, length: Math.min(FILE_CHUNK_BYTES, t.size - offset) };
  }

  private create(id: string, fields: Omit<Transfer, 'id' | 'bytes' | 'chunks' | 'ended'>): Transfer {
    if (this.transfers.has(id)) throw new AppError('INVALID_INPUT', `Transfer ${id} is already running.`);
    const t: Transfer = { id, bytes: 0, chunks: new Set(), ended: false, ...fields };
    this.transfers.set(id, t);
    this.arm(t);
    return t;
  }

  private async finishUpload(t: Transfer): Promise<void> {
    try {
      await t.file.close();
      // Without `replace`, something that appeared under the name meanwhile is left alone.
      if (!t.replace) await assertFree(t.files, t.path);
      await t.files.rename(t.part!, t.path, { overwrite: t.replace });
    } catch (e) {
      t.ended = true; // the handle is closed already
      clearTimeout(t.timer);
      this.transfers.delete(t.id);
      await t.files.remove(t.part!).catch(() => {});
      const err = toAppError(e);
      this.emit('files.done', { transferId: t.id, outcome: 'failed', error: err.toJSON() });
      throw err;
    }
    t.ended = true;
    clearTimeout(t.timer);
    this.transfers.delete(t.id);
    this.emit('files.done', { transferId: t.id, outcome: 'done' });
  }
}
