import { z } from 'zod';
import { call } from '../rpc.js';

// The session-log part of the app contract (spread into src/common/contract.ts): a tab's
// "Log to file" starts and stops the engine's log of that session (src/node/log). The engine
// picks the file (under the config dir's logs/) and says where it is. A tab that reconnects with
// its log on asks for the log in session.open itself (`log`), so the new session's log starts
// with its first byte rather than one round trip later, when log.start would reach the engine.

const SessionId = z.string().min(1).max(64);

/** session.open's `log`: log the session from its first byte; `timestamps` defaults to the Settings'. log.start then answers with its path. */
export const LogOnOpenSchema = z.object({ timestamps: z.boolean().optional() });
export type LogOnOpen = z.infer<typeof LogOnOpenSchema>;

export const logCalls = {
  /** Starts logging the session's output (plain text); `timestamps` defaults to the Settings'. Idempotent. */
  'log.start': call(z.object({ sessionId: SessionId, timestamps: z.boolean().optional() }), z.object({ path: z.string() })),
  /** Stops and closes the session's log; path null when none was running. */
  'log.stop': call(z.object({ sessionId: SessionId }), z.object({ path: z.string().nullable() })),
};
