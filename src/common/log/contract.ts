import { z } from 'zod';
import { call } from '../rpc.js';

// The session-log part of the app contract (spread into src/common/contract.ts): a tab's
// "Log to file" starts and stops the engine's log of that session (src/node/log). The engine
// picks the file (under the config dir's logs/) and says where it is.

const SessionId = z.string().min(1).max(64);

export const logCalls = {
  /** Starts logging the session's output (plain text); `timestamps` defaults to the Settings'. Idempotent. */
  'log.start': call(z.object({ sessionId: SessionId, timestamps: z.boolean().optional() }), z.object({ path: z.string() })),
  /** Stops and closes the session's log; path null when none was running. */
  'log.stop': call(z.object({ sessionId: SessionId }), z.object({ path: z.string().nullable() })),
};
