import { AppError } from '../../common/errors.js';
import { startSession, streamAgent, terminateSession, type SsmScope } from './api.js';
import { openDataChannel, type DataChannel } from './client.js';

// What a shell and a port session share: StartSession, the data channel on its stream URL (through
// the proxy the API calls use), and a check that the agent opened the kind of session asked for.
// Whatever fails after StartSession ends the session, so none is left open on the account.

interface OpenedSession {
  sessionId: string;
  dc: DataChannel;
}

export async function openSessionChannel(
  scope: SsmScope,
  o: { port?: number; signal?: AbortSignal | undefined; kinds: readonly string[]; asked: string; hint?: string },
): Promise<OpenedSession> {
  const session = await startSession(o.port === undefined ? scope : { ...scope, port: o.port });
  let dc: DataChannel;
  try {
    const agent = await streamAgent(session.streamUrl, scope.profile);
    dc = await openDataChannel({ streamUrl: session.streamUrl, token: session.token, ...(agent ? { agent } : {}), ...(o.signal ? { signal: o.signal } : {}) });
  } catch (e) {
    await terminateSession(scope, session.sessionId);
    throw e;
  }
  if (dc.sessionType && !o.kinds.includes(dc.sessionType)) {
    dc.close();
    await terminateSession(scope, session.sessionId);
    throw new AppError('CONNECT_FAILED', `Session Manager opened a ${dc.sessionType} session where ${o.asked} was asked for.`, o.hint);
  }
  return { sessionId: session.sessionId, dc };
}
