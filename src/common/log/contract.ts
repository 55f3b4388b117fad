import * as z from 'zod';
import { call } from '../rpc.js';

// The session-log part of the app contract (spread into src/common/contract.ts). A tab's
// "Log to file" (plain text) and "Record" (asciicast, for replay) start and stop the engine's
// records of that session (src/node/log). The engine picks the file (Settings › Session logs:
// folder and name pattern) and says where it is. A tab that reconnects with its log on asks for
// it in session.open itself (`log`), so the new session's log starts with its first byte rather
// than one round trip later, when log.start would reach the engine. The Logs view lists, opens,
// replays and reveals the files of the log folder — by name, that folder only.

const SessionId = z.string().min(1).max(64);

/** A plain-text log (the work log) or an asciicast v2 recording for replay. */
export const LogKindSchema = z.enum(['text', 'cast']);
export type LogKind = z.infer<typeof LogKindSchema>;

/** session.open's `log`: record the session from its first byte; `timestamps` defaults to the Settings'; `kinds` to the text log. */
export const LogOnOpenSchema = z.object({ timestamps: z.boolean().optional(), kinds: z.array(LogKindSchema).max(2).optional() });

const LogEntrySchema = z.object({
  /** The file's name in the log folder (its identity for logs.read / logs.reveal). */
  file: z.string(),
  kind: LogKindSchema,
  size: z.number().int().nonnegative(),
  mtime: z.number(),
  instanceId: z.string().nullable(),
  name: z.string().nullable(),
  region: z.string().nullable(),
  /** When the session started (ISO 8601), from the file's header. */
  started: z.string().nullable(),
});
export type LogEntry = z.infer<typeof LogEntrySchema>;

const FileName = z.string().min(1).max(255);
/** Opened in the app: the first 8 MiB of a text log, a recording up to 64 MiB. */
export const LOG_READ_LIMIT = { text: 8 * 1024 * 1024, cast: 64 * 1024 * 1024 } as const;

export const logCalls = {
  /** Starts recording the session's output; `timestamps` defaults to the Settings'. Idempotent per kind. */
  'log.start': call(
    z.object({ sessionId: SessionId, timestamps: z.boolean().optional(), kind: LogKindSchema.default('text') }),
    z.object({ path: z.string() }),
  ),
  /** Stops and closes the session's log of that kind; path null when none was running. */
  'log.stop': call(z.object({ sessionId: SessionId, kind: LogKindSchema.default('text') }), z.object({ path: z.string().nullable() })),
  /** The log folder and its logs and recordings, newest first. */
  'logs.list': call(z.object({}), z.object({ folder: z.string(), entries: z.array(LogEntrySchema) })),
  /** A log's text (a recording's asciicast lines), by its name in the log folder. */
  'logs.read': call(z.object({ file: FileName }), z.object({ file: z.string(), kind: LogKindSchema, text: z.string(), truncated: z.boolean() })),
  /**
   * Where a log is, to show it in the file manager. The engine answers the path (revealed false);
   * the Electron shell shows it in the folder on the way back (revealed true); in a browser the
   * page shows the path to copy.
   */
  'logs.reveal': call(z.object({ file: FileName }), z.object({ path: z.string(), revealed: z.boolean() })),
};
