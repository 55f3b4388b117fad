import * as z from 'zod';
import { call } from '../rpc.js';
import { REMOTE_PATH_MAX, nameProblem } from './paths.js';

// The file panel's part of the app contract (spread into src/common/contract.ts). Every call
// names the terminal session whose SSH connection it rides on (no new handshake). Bytes cross
// the wire as base64 in bounded chunks the renderer asks for (downloads) or sends (uploads), so
// the same calls work over Electron IPC and the browser-mode WebSocket (2 MiB per message), and
// flow control is simply "ask for the next chunk". The backend reports `files.progress` as
// bytes reach the server (uploads) or leave it (downloads), and `files.done` once per transfer.

/** Raw bytes per chunk: base64 of it stays far below the WebSocket's 2 MiB message limit. */
export const FILE_CHUNK_BYTES = 512 * 1024;
const CHUNK_BASE64_MAX = Math.ceil(FILE_CHUNK_BYTES / 3) * 4;
/** Entries one listing returns unless more are asked for (a directory of a million files must not freeze the app). */
export const LIST_MAX_ENTRIES = 5000;
/**
 * The most entries the panel ever asks for ("Show more" adds LIST_MAX_ENTRIES at a time): the
 * engine reads no further into a listing, so a server whose listing never ends costs it this
 * many entries, not its memory.
 */
export const LIST_LIMIT_MAX = 100_000;
/** Largest file the panel moves (held in the browser's memory on download). */
export const TRANSFER_MAX_BYTES = 4 * 1024 ** 3;

const SessionId = z.string().min(1).max(64);
export const RemotePathSchema = z
  .string()
  .min(1)
  .max(REMOTE_PATH_MAX)
  .refine((p) => p.startsWith('/'), 'an absolute path (starting with /)')
  .refine((p) => !p.includes('\0'), 'no NUL character');
export const FileNameSchema = z
  .string()
  .max(1024)
  .superRefine((n, ctx) => {
    const problem = nameProblem(n);
    if (problem) ctx.addIssue({ code: 'custom', message: `not a file name (${problem})` });
  });
const TransferIdSchema = z.string().regex(/^[A-Za-z0-9-]{8,64}$/, 'a transfer id (8–64 letters, digits, -)');
const Base64 = z
  .string()
  .max(CHUNK_BASE64_MAX)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');
const Offset = z.number().int().nonnegative().max(TRANSFER_MAX_BYTES);

const FileKindSchema = z.enum(['file', 'dir', 'link', 'other']);
const FileEntrySchema = z.object({
  /** As the server sent it (untrusted: any bytes, shown as text with controls escaped). */
  name: z.string(),
  kind: FileKindSchema,
  /** For links: what the link points at is a directory (browsing into it works). */
  toDir: z.boolean().optional(),
  size: z.number(),
  /** Permission bits (e.g. 0o644). */
  mode: z.number().int(),
  /** Modification time, epoch ms. */
  mtime: z.number(),
});
export type FileEntry = z.infer<typeof FileEntrySchema>;

const TransferDoneSchema = z.object({
  transferId: z.string(),
  outcome: z.enum(['done', 'cancelled', 'failed']),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional(), details: z.unknown().optional() }).optional(),
});

export const filesCalls = {
  /**
   * A directory's entries (`.` and `..` left out), at most `limit` (LIST_MAX_ENTRIES unless given);
   * `truncated` when it holds more. No path = the login directory. `path` comes back resolved.
   */
  'files.list': call(
    z.object({ sessionId: SessionId, path: RemotePathSchema.optional(), limit: z.number().int().min(1).max(LIST_LIMIT_MAX).optional() }),
    z.object({ path: z.string(), entries: z.array(FileEntrySchema), truncated: z.boolean() }),
  ),
  /** The current directory of the session's shell (the foreground process's, e.g. after `cd`). */
  'files.cwd': call(z.object({ sessionId: SessionId }), z.object({ path: z.string() })),
  'files.mkdir': call(z.object({ sessionId: SessionId, dir: RemotePathSchema, name: FileNameSchema }), z.object({ path: z.string() })),
  'files.rename': call(z.object({ sessionId: SessionId, dir: RemotePathSchema, from: FileNameSchema, to: FileNameSchema }), z.null()),
  /** A file, a link or an empty directory; `recursive` removes a directory with everything in it. */
  'files.delete': call(z.object({ sessionId: SessionId, dir: RemotePathSchema, name: FileNameSchema, recursive: z.boolean().default(false) }), z.null()),
  /**
   * Starts an upload of `size` bytes into dir/name, written under a temp name and renamed when the
   * last byte is in (an interrupted upload never looks complete). `replace` must be true when
   * dir/name exists.
   */
  'files.upload': call(
    z.object({
      sessionId: SessionId,
      transferId: TransferIdSchema,
      dir: RemotePathSchema,
      name: FileNameSchema,
      size: Offset,
      replace: z.boolean().default(false),
    }),
    z.null(),
  ),
  /** Writes one chunk at `offset` (chunks may arrive out of order); the one that completes the file finishes the upload. */
  'files.uploadChunk': call(z.object({ transferId: TransferIdSchema, offset: Offset, data: Base64 }), z.object({ received: z.number() })),
  /** Opens dir/name for download; read it with files.downloadChunk. */
  'files.download': call(
    z.object({ sessionId: SessionId, transferId: TransferIdSchema, dir: RemotePathSchema, name: FileNameSchema }),
    z.object({ size: z.number() }),
  ),
  /** Up to FILE_CHUNK_BYTES from `offset`; the transfer ends once every byte was read. */
  'files.downloadChunk': call(z.object({ transferId: TransferIdSchema, offset: Offset }), z.object({ data: Base64 })),
  /** Stops a transfer: an upload's temp file is removed; chunk calls then fail with CANCELLED. */
  'files.cancel': call(z.object({ transferId: TransferIdSchema }), z.object({ cancelled: z.boolean() })),
};

export const filesEvents = {
  'files.progress': z.object({ transferId: z.string(), bytes: z.number(), total: z.number() }),
  'files.done': TransferDoneSchema,
};
