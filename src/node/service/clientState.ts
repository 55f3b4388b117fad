import { AppError } from '../../common/errors.js';
import type { CancelledDetails } from '../../common/errorDetails.js';
import type { AttachedSession, Emit } from '../../common/contract.js';
import type { SessionOutput } from './outputStream.js';
import type { PromptBroker } from './promptBroker.js';
import type { SessionOpenedHook } from './types.js';

// What one UI connection's session handlers share: its output streams, its prompts, its opens in
// flight, and whether it went away. The service (service.ts) makes one per connection.

/** What the service remembers of a session it opened, for a page that re-attaches to it. */
export interface OpenedAs {
  info: Omit<AttachedSession, 'reopen' | 'charset' | 'scrollback' | 'ended'>;
  reopen: AttachedSession['reopen'];
}

export interface ClientState {
  id: string;
  emit: Emit;
  /** The connection went away: what finishes afterwards is closed, not handed over. */
  disposed: boolean;
  /** The page this connection serves, once it named itself (session.attach). */
  pageId: string | null;
  output: SessionOutput;
  prompts: PromptBroker;
  /** Opens in flight, by the UI's openId, so the UI can cancel a long wait. */
  opens: Map<string, AbortController>;
  /** Opens that asked EC2 to start the instance: a cancel says the instance keeps starting. */
  started: Set<string>;
  /** Sections told the moment a session becomes this window's (see HandlerSection). */
  opened: SessionOpenedHook[];
}

/** The error a cancelled open reports (saying whether the instance keeps starting). */
export function cancelledOpen(c: ClientState, openId: string): AppError {
  return new AppError('CANCELLED', c.started.has(openId) ? 'Cancelled; the instance keeps starting.' : 'Cancelled.', undefined, {
    instanceStarting: c.started.has(openId),
  } satisfies CancelledDetails);
}
