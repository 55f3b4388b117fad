import { AppError, toAppError } from '../../common/errors.js';
import type { Handlers } from '../../common/contract.js';
import { FILE_CHUNK_BYTES, LIST_MAX_ENTRIES, TRANSFER_MAX_BYTES } from '../../common/files/contract.js';
import { joinRemote, partNameOf } from '../../common/files/paths.js';
import type { HandlerSection, SessionPort } from '../service/types.js';
import type { ConnectTarget } from '../ssh/types.js';
import { poolKey } from '../ssh/sessionManager.js';
import { FileSession, type RemoteFile } from './index.js';
import { shellCwd } from './panelCwd.js';
import { assertFree, listForPanel, panelError } from './panelSftp.js';

// The file panel's handlers (one set per UI connection). Every call names a terminal session;
// its SFTP channel rides on that session's pooled SSH connection (SessionManager.acquire with
// the session's own target: a new channel, no new handshake) and is let go when the session
// closes. Transfers are chunked by the renderer; an upload is written under a temp name and
// renamed once its last byte is in, so a cancelled, failed or abandoned upload never looks like
// the file. A transfer nobody touches for `idleMs` is given up (the window went away).

export interface FilesSectionOptions {
  /** A transfer without a chunk call for this long is abandoned (its temp file removed). */
  idleMs?: number;
}

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

type PoolPort = Required<Pick<SessionPort, 'targetOf' | 'acquire' | 'list'>>;

function poolOf(sessions: SessionPort): PoolPort {
  if (!sessions.targetOf || !sessions.acquire || !sessions.list) throw new AppError('INTERNAL', 'This backend cannot open files on a session.');
  return sessions as SessionPort & PoolPort;
}

/** An error about an upload's temp file, told about the file the person named (the temp name is ours). */
function aboutFinal(e: unknown, part: string, path: string): AppError {
  const err = toAppError(e);
  const details = err.details && typeof err.details === 'object' ? { ...(err.details as Record<string, unknown>), path } : { path };
  return new AppError(err.code, err.message.split(part).join(path), err.hint, details);
}

const sessionGone = (id: string) => new AppError('SESSION_CLOSED', `Session ${id} is not open.`, 'Reconnect the terminal tab, then open its files again.');

export function filesSection(o: FilesSectionOptions = {}): HandlerSection {
  const idleMs = o.idleMs ?? 60_000;
  return ({ deps, emit, ownsSession }) => {
    const sessions = deps.engine.sessions;
    /** The target of a session this window opened (another window's session is not this panel's to touch). */
    const targetOf = (pool: PoolPort, sessionId: string) => {
      const target = ownsSession(sessionId) ? pool.targetOf(sessionId) : undefined;
      if (!target) throw sessionGone(sessionId);
      return target;
    };
    const channels = new Map<string, Promise<FileSession>>();
    const transfers = new Map<string, Transfer>();
    let watching = false;

    const dropChannel = (sessionId: string) => {
      const c = channels.get(sessionId);
      if (!c) return;
      channels.delete(sessionId);
      // Listen for closing sessions only while a channel is held (a section lives as long as its UI connection).
      if (!channels.size && watching) {
        watching = false;
        sessions.off('closed', onSessionClosed);
      }
      void c.then(
        (files) => files.close(),
        () => {},
      );
    };
    // A session that closes lets go of its SFTP channel, so the pooled connection can close with its last tab.
    const onSessionClosed = (id: string) => dropChannel(id);

    const filesOf = (sessionId: string): Promise<FileSession> => {
      const existing = channels.get(sessionId);
      if (existing) return existing;
      const pool = poolOf(sessions);
      let target: ConnectTarget;
      try {
        target = targetOf(pool, sessionId);
      } catch (e) {
        return Promise.reject(e as Error);
      }
      if (!watching) {
        watching = true;
        sessions.on('closed', onSessionClosed);
      }
      const opening = FileSession.acquire(pool, target).then((files) => {
        files.onClose(() => {
          if (channels.get(sessionId) === opening) channels.delete(sessionId);
        });
        return files;
      });
      channels.set(sessionId, opening);
      opening.catch(() => channels.get(sessionId) === opening && channels.delete(sessionId));
      return opening;
    };

    // ---- transfers ----
    const arm = (t: Transfer) => {
      clearTimeout(t.timer);
      t.timer = setTimeout(() => void end(t, 'failed', new AppError('CANCELLED', `The transfer of ${t.path} stalled and was given up.`)), idleMs);
      t.timer.unref?.();
    };
    /** Ends a transfer once: closes the handle, removes an unfinished upload's temp file, tells the UI. */
    const end = async (t: Transfer, outcome: 'done' | 'cancelled' | 'failed', error?: AppError) => {
      if (t.ended) return;
      t.ended = true;
      clearTimeout(t.timer);
      transfers.delete(t.id);
      await t.file.close().catch(() => {});
      if (t.part && outcome !== 'done') await t.files.remove(t.part).catch(() => {});
      emit('files.done', { transferId: t.id, outcome, ...(error ? { error: error.toJSON() } : {}) });
    };
    const fail = async (t: Transfer, e: unknown): Promise<never> => {
      const err = toAppError(e);
      await end(t, 'failed', err);
      throw err;
    };
    const transferOf = (id: string, kind: Transfer['kind']) => {
      const t = transfers.get(id);
      if (!t || t.kind !== kind) throw new AppError('CANCELLED', 'That transfer is no longer running.', 'Start it again.');
      return t;
    };
    /** The chunk number at `offset` and its length; each chunk is taken exactly once. */
    const chunkAt = (t: Transfer, offset: number): { index: number; length: number } => {
      if (offset % FILE_CHUNK_BYTES !== 0 || (offset >= t.size && t.size > 0))
        throw new AppError('INVALID_INPUT', `Offset ${offset} is not a chunk of ${t.path}.`);
      const index = offset / FILE_CHUNK_BYTES;
      if (t.chunks.has(index)) throw new AppError('INVALID_INPUT', `Chunk ${index} of ${t.path} was already transferred.`);
      return { index, length: Math.min(FILE_CHUNK_BYTES, t.size - offset) };
    };
    const newTransfer = (id: string, fields: Omit<Transfer, 'id' | 'bytes' | 'chunks' | 'ended'>): Transfer => {
      if (transfers.has(id)) throw new AppError('INVALID_INPUT', `Transfer ${id} is already running.`);
      const t: Transfer = { id, bytes: 0, chunks: new Set(), ended: false, ...fields };
      transfers.set(id, t);
      arm(t);
      return t;
    };
    const finishUpload = async (t: Transfer) => {
      try {
        await t.file.close();
        // Without `replace`, something that appeared under the name meanwhile is left alone.
        if (!t.replace) await assertFree(t.files, t.path);
        await t.files.rename(t.part!, t.path, { overwrite: t.replace });
      } catch (e) {
        t.ended = true; // the handle is closed already
        clearTimeout(t.timer);
        transfers.delete(t.id);
        await t.files.remove(t.part!).catch(() => {});
        const err = toAppError(e);
        emit('files.done', { transferId: t.id, outcome: 'failed', error: err.toJSON() });
        throw err;
      }
      t.ended = true;
      clearTimeout(t.timer);
      transfers.delete(t.id);
      emit('files.done', { transferId: t.id, outcome: 'done' });
    };

    const handlers: Partial<Handlers> = {
      async 'files.list'({ sessionId, path, limit }) {
        const files = await filesOf(sessionId);
        const dir = await files.realpath(path ?? '.');
        return { path: dir, ...(await listForPanel(files, dir, limit ?? LIST_MAX_ENTRIES)) };
      },
      async 'files.cwd'({ sessionId }) {
        const pool = poolOf(sessions);
        const target = targetOf(pool, sessionId);
        // The tab's place among the terminals on its connection, in the order they opened.
        const key = poolKey(target);
        const mates = pool.list().filter((s) => {
          const t = pool.targetOf(s.id);
          return t && poolKey(t) === key;
        });
        const index = mates.findIndex((s) => s.id === sessionId) + 1;
        const { connection } = await filesOf(sessionId);
        return { path: await shellCwd(connection, index, target.label) };
      },
      async 'files.mkdir'({ sessionId, dir, name }) {
        const path = joinRemote(dir, name);
        const files = await filesOf(sessionId);
        await assertFree(files, path);
        await files.mkdir(path);
        return { path };
      },
      async 'files.rename'({ sessionId, dir, from, to }) {
        const files = await filesOf(sessionId);
        await assertFree(files, joinRemote(dir, to));
        await files.rename(joinRemote(dir, from), joinRemote(dir, to));
        return null;
      },
      async 'files.delete'({ sessionId, dir, name, recursive }) {
        await (await filesOf(sessionId)).remove(joinRemote(dir, name), { recursive });
        return null;
      },
      async 'files.upload'({ sessionId, transferId, dir, name, size, replace }) {
        const files = await filesOf(sessionId);
        const path = joinRemote(dir, name);
        if (!replace) await assertFree(files, path);
        const part = joinRemote(dir, partNameOf(name, transferId));
        const file = await files.openFile(part, 'wx').catch((e: unknown) => {
          throw aboutFinal(e, part, path);
        });
        const t = newTransfer(transferId, { kind: 'upload', files, file, path, part, replace, size });
        emit('files.progress', { transferId, bytes: 0, total: size });
        if (size === 0) await finishUpload(t);
        return null;
      },
      async 'files.uploadChunk'({ transferId, offset, data }) {
        const t = transferOf(transferId, 'upload');
        const { index, length } = chunkAt(t, offset);
        const bytes = Buffer.from(data, 'base64');
        if (bytes.length !== length) throw new AppError('INVALID_INPUT', `Chunk ${index} of ${t.path} has ${bytes.length} bytes, expected ${length}.`);
        t.chunks.add(index);
        arm(t);
        try {
          await t.file.writeAt(bytes, offset);
        } catch (e) {
          return fail(t, aboutFinal(e, t.part!, t.path));
        }
        if (t.ended) throw new AppError('CANCELLED', `The upload of ${t.path} was cancelled.`);
        t.bytes += length;
        emit('files.progress', { transferId, bytes: t.bytes, total: t.size });
        if (t.bytes === t.size) await finishUpload(t);
        return { received: t.bytes };
      },
      async 'files.download'({ sessionId, transferId, dir, name }) {
        const files = await filesOf(sessionId);
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
        const t = newTransfer(transferId, { kind: 'download', files, file, path, replace: false, size });
        emit('files.progress', { transferId, bytes: 0, total: size });
        if (size === 0) await end(t, 'done');
        return { size };
      },
      async 'files.downloadChunk'({ transferId, offset }) {
        const t = transferOf(transferId, 'download');
        const { index, length } = chunkAt(t, offset);
        t.chunks.add(index);
        arm(t);
        let data: Buffer;
        try {
          data = await t.file.readAt(offset, length);
        } catch (e) {
          return fail(t, e);
        }
        if (t.ended) throw new AppError('CANCELLED', `The download of ${t.path} was cancelled.`);
        if (data.length !== length) return fail(t, panelError('changed', t.path, `${t.path} changed while it was downloading.`));
        t.bytes += length;
        emit('files.progress', { transferId, bytes: t.bytes, total: t.size });
        if (t.bytes === t.size) await end(t, 'done');
        return { data: data.toString('base64') };
      },
      async 'files.cancel'({ transferId }) {
        const t = transfers.get(transferId);
        if (!t) return { cancelled: false };
        await end(t, 'cancelled');
        return { cancelled: true };
      },
    };
    return handlers;
  };
}
