import { AppError } from '../../common/errors.js';
import type { AttachedSession, Handlers, Parsed } from '../../common/contract.js';
import { runningLogsOf } from '../log/runningLogs.js';
import { encodeInput } from './charset.js';
import { cancelledOpen, type ClientState, type OpenedAs } from './clientState.js';
import { SessionOutput } from './outputStream.js';
import type { ParkedPages } from './parkedPages.js';
import { scopeFrom, type AppServiceDeps, type OpenRequest } from './types.js';

// The session.* handlers of one UI connection: open (cancellable, with its prompts), attach (a
// reloaded page takes back its sessions), and the calls on an open session, which act only on
// sessions this connection owns.

type SessionMethod =
  | 'session.open'
  | 'session.attach'
  | 'session.cancelOpen'
  | 'session.write'
  | 'session.charset'
  | 'session.resize'
  | 'session.ack'
  | 'session.passphrase'
  | 'session.secret'
  | 'session.close';

/** What every connection of one service shares: the pages waiting to be re-attached, the sessions some window owns. */
export interface ServiceShared {
  pages: ParkedPages;
  /** Sessions some window owns: their output is never held for another window's open. */
  claimed: Set<string>;
}

/** What the engine is asked for: the open's input, the settings, and this connection's prompts and progress. */
function openRequest({ settings }: AppServiceDeps, c: ClientState, input: Parsed<'session.open'>): OpenRequest {
  const s = settings.get();
  const req: OpenRequest = {
    ...scopeFrom(input, s, input.region),
    ref: input.ref,
    cols: input.cols,
    rows: input.rows,
    start: input.start,
    settings: s,
    onProgress: (message, step) => c.emit('session.progress', { openId: input.openId, message, ...(step ? { step } : {}) }),
    askPassphrase: c.prompts.asker(input.openId),
    onStarted: () => c.started.add(input.openId),
  };
  if (input.pick) req.pick = input.pick;
  if (input.acceptNewHostKey) req.acceptNewHostKey = input.acceptNewHostKey;
  if (input.private !== undefined) req.private = input.private;
  if (input.user) req.user = input.user;
  if (input.eic) req.eic = true;
  if (input.serialConsole) req.serialConsole = true;
  req.askSecret = c.prompts.secretAsker(input.openId);
  return req;
}

async function openSession(deps: AppServiceDeps, c: ClientState, input: Parsed<'session.open'>) {
  const { engine } = deps;
  const req = openRequest(deps, c, input);
  const abort = new AbortController();
  req.signal = abort.signal;
  c.opens.set(input.openId, abort);
  c.output.beginOpen();
  try {
    const info = await engine.openSession(req);
    if (c.disposed || abort.signal.aborted) {
      // The UI went away (or gave up) while we were connecting: nobody will ever close this session.
      engine.sessions.close(info.sessionId);
      throw c.disposed ? new AppError('SESSION_CLOSED', 'The window closed while connecting.') : cancelledOpen(c, input.openId);
    }
    const openedAs: OpenedAs = {
      info,
      reopen: {
        ref: input.ref,
        ...(input.region ? { region: input.region } : {}),
        ...(input.pick ? { pick: input.pick } : {}),
        ...(input.user ? { user: input.user } : {}),
      },
    };
    const early = c.output.adopt(info.sessionId, input.charset, openedAs);
    for (const fn of c.opened) fn(info.sessionId, early, { log: input.log });
    return info;
  } catch (e) {
    // A wait that ended because the UI cancelled reports the cancel, not the wait's own error;
    // so does a login that failed because the person declined the key's passphrase.
    if ((abort.signal.aborted || c.prompts.wasDeclined(input.openId)) && !c.disposed) throw cancelledOpen(c, input.openId);
    throw e;
  } finally {
    c.opens.delete(input.openId);
    c.started.delete(input.openId);
    c.prompts.forget(input.openId);
    c.output.endOpen();
  }
}

/** A page names itself and takes back the sessions it left when its previous connection went (a reload). */
async function attachPage({ engine }: AppServiceDeps, c: ClientState, { pages, claimed }: ServiceShared, input: Parsed<'session.attach'>) {
  if (c.pageId !== null && c.pageId !== input.pageId) throw new AppError('INVALID_INPUT', 'This connection already named its page.', 'Reload the window.');
  const handed = await pages.claim(input.pageId, c.id);
  if (c.disposed) {
    // The connection went while waiting: what it took goes back to wait for the page.
    if (handed) {
      const keeper = new SessionOutput(engine.sessions, () => {}, claimed);
      for (const h of handed) if (!h.ended) keeper.take(h);
      keeper.park();
      pages.release(input.pageId, c.id, keeper);
    }
    throw new AppError('SESSION_CLOSED', 'The window closed.');
  }
  if (!handed) return { taken: true, sessions: [] };
  c.pageId = input.pageId;
  const sessions: AttachedSession[] = [];
  for (const h of handed) {
    const opened = h.meta as OpenedAs | undefined;
    if (!opened) continue;
    if (!h.ended) c.output.take(h);
    sessions.push({
      ...opened.info,
      reopen: opened.reopen,
      charset: h.charset,
      scrollback: h.scrollback.text(),
      ...(h.ended ? { ended: h.ended } : { logs: runningLogsOf(engine).kindsOf(h.id) }),
    });
  }
  return { taken: false, sessions };
}

export function sessionHandlers(deps: AppServiceDeps, c: ClientState, shared: ServiceShared): Pick<Handlers, SessionMethod> {
  const { engine } = deps;
  const { output, prompts } = c;
  return {
    'session.open': (input) => openSession(deps, c, input),
    'session.attach': (input) => attachPage(deps, c, shared, input),
    'session.cancelOpen'({ openId }) {
      const abort = c.opens.get(openId);
      if (!abort) return { cancelled: false };
      abort.abort();
      prompts.cancel('Cancelled.', openId);
      return { cancelled: true };
    },
    'session.write'({ sessionId, data }) {
      output.mustOwn(sessionId);
      engine.sessions.write(sessionId, encodeInput(output.charsetOf(sessionId), data));
      return null;
    },
    'session.charset'({ sessionId, charset }) {
      output.mustOwn(sessionId);
      output.setCharset(sessionId, charset);
      return null;
    },
    'session.resize'({ sessionId, cols, rows }) {
      output.mustOwn(sessionId);
      engine.sessions.resize(sessionId, cols, rows);
      return null;
    },
    'session.ack'({ sessionId, chars }) {
      output.ack(sessionId, chars);
      return null;
    },
    'session.passphrase'({ promptId, passphrase }) {
      prompts.answer(promptId, passphrase);
      return null;
    },
    'session.secret'({ promptId, answers }) {
      prompts.answer(promptId, answers);
      return null;
    },
    'session.close'({ sessionId }) {
      if (output.owns(sessionId)) engine.sessions.close(sessionId);
      return null;
    },
  };
}
