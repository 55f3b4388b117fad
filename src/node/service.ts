import { randomUUID } from 'node:crypto';
import { AppError } from '../common/errors.js';
import type { CancelledDetails } from '../common/errorDetails.js';
import { SessionOutput } from './service/outputStream.js';
import { PromptBroker } from './service/promptBroker.js';
import { ParkedPages } from './service/parkedPages.js';
import { encodeInput } from './service/charset.js';
import type {
  AttachedSession,
  BenchMethod,
  FilesMethod,
  Handlers,
  ImportMethod,
  LogMethod,
  Parsed,
  SecurityGroupsMethod,
  TunnelsMethod,
  WorkspaceMethod,
} from '../common/contract.js';
import { runningLogsOf } from './log/runningLogs.js';
import { defaultSections } from './service/sections.js';
import { scopeFrom, scopeKeyOf, type AppClient, type AppService, type AppServiceDeps, type OpenRequest, type SessionOpenedHook } from './service/types.js';
import { sshConfigEnv } from './export/exportEnv.js';

// createAppService(deps): the ONE backend behind the contract. The Electron main process and the
// browser-mode server both call it; only the transport and the settings store differ. Each UI
// connection gets its own handler set (connect()), so sessions belong to the window that opened
// them and die with it.

/** What the service remembers of a session it opened, for a page that re-attaches to it. */
interface OpenedAs {
  info: Omit<AttachedSession, 'reopen' | 'charset' | 'scrollback' | 'ended'>;
  reopen: AttachedSession['reopen'];
}

export function createAppService(deps: AppServiceDeps): AppService {
  const { engine, settings } = deps;
  const clients = new Set<AppClient>();
  // Sessions some window owns: their output is never held for another window's open.
  const claimed = new Set<string>();
  const pages = new ParkedPages(deps.reattachGraceMs);

  return {
    connect(emit) {
      const clientId = randomUUID();
      let disposed = false;
      /** The page this connection serves, once it named itself (session.attach). */
      let pageId: string | null = null;
      const output = new SessionOutput(engine.sessions, emit, claimed);
      const prompts = new PromptBroker(emit);
      // Opens in flight, by the UI's openId, so the UI can cancel a long wait.
      const opens = new Map<string, AbortController>();
      // Opens that asked EC2 to start the instance: a cancel says the instance keeps starting.
      const started = new Set<string>();
      // Sections told the moment a session becomes this window's (see HandlerSection).
      const opened: SessionOpenedHook[] = [];
      const cancelledOpen = (openId: string) =>
        new AppError('CANCELLED', started.has(openId) ? 'Cancelled; the instance keeps starting.' : 'Cancelled.', undefined, {
          instanceStarting: started.has(openId),
        } satisfies CancelledDetails);

      const base: Omit<Handlers, BenchMethod | FilesMethod | SecurityGroupsMethod | LogMethod | TunnelsMethod | ImportMethod | WorkspaceMethod> = {
        async 'instances.list'(input) {
          const s = settings.get();
          const scope = scopeFrom(input, s);
          const scopeKey = scopeKeyOf(scope);
          return engine.listInstances(scope, {
            refresh: input.refresh,
            onUpdate: (list) => emit('instances.updated', { ...list, scopeKey }),
          });
        },
        async 'instances.start'(input) {
          return engine.startInstance(input.id, { ...scopeFrom(input, settings.get(), input.region), region: input.region });
        },
        async 'instances.stop'(input) {
          return engine.stopInstance(input.id, { ...scopeFrom(input, settings.get(), input.region), region: input.region });
        },
        async 'aws.profiles'() {
          const found = await engine.listProfiles();
          const extra = settings.get().profiles;
          return { ...found, profiles: [...new Set([...found.profiles, ...extra])].sort() };
        },
        async 'aws.regions'(input) {
          if (!engine.listRegions) throw new AppError('INTERNAL', 'This backend cannot list regions.');
          const scope = scopeFrom(input.profile ? { profile: input.profile } : {}, settings.get());
          return { regions: await engine.listRegions({ ...(scope.profile ? { profile: scope.profile } : {}) }, input.refresh) };
        },
        async 'session.open'(input: Parsed<'session.open'>) {
          const s = settings.get();
          const req: OpenRequest = {
            ...scopeFrom(input, s, input.region),
            ref: input.ref,
            cols: input.cols,
            rows: input.rows,
            start: input.start,
            settings: s,
            onProgress: (message, step) => emit('session.progress', { openId: input.openId, message, ...(step ? { step } : {}) }),
            askPassphrase: prompts.asker(input.openId),
            onStarted: () => started.add(input.openId),
          };
          if (input.pick) req.pick = input.pick;
          if (input.acceptNewHostKey) req.acceptNewHostKey = input.acceptNewHostKey;
          if (input.private !== undefined) req.private = input.private;
          if (input.user) req.user = input.user;
          if (input.eic) req.eic = true;
          if (input.serialConsole) req.serialConsole = true;
          req.askSecret = prompts.secretAsker(input.openId);
          const abort = new AbortController();
          req.signal = abort.signal;
          opens.set(input.openId, abort);
          output.beginOpen();
          try {
            const info = await engine.openSession(req);
            if (disposed || abort.signal.aborted) {
              // The UI went away (or gave up) while we were connecting: nobody will ever close this session.
              engine.sessions.close(info.sessionId);
              throw disposed ? new AppError('SESSION_CLOSED', 'The window closed while connecting.') : cancelledOpen(input.openId);
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
            const early = output.adopt(info.sessionId, input.charset, openedAs);
            for (const fn of opened) fn(info.sessionId, early, { log: input.log });
            return info;
          } catch (e) {
            // A wait that ended because the UI cancelled reports the cancel, not the wait's own error;
            // so does a login that failed because the person declined the key's passphrase.
            if ((abort.signal.aborted || prompts.wasDeclined(input.openId)) && !disposed) throw cancelledOpen(input.openId);
            throw e;
          } finally {
            opens.delete(input.openId);
            started.delete(input.openId);
            prompts.forget(input.openId);
            output.endOpen();
          }
        },
        async 'session.attach'(input) {
          if (pageId !== null && pageId !== input.pageId) throw new AppError('INVALID_INPUT', 'This connection already named its page.', 'Reload the window.');
          const handed = await pages.claim(input.pageId, clientId);
          if (disposed) {
            // The connection went while waiting: what it took goes back to wait for the page.
            if (handed) {
              const keeper = new SessionOutput(engine.sessions, () => {}, claimed);
              for (const h of handed) if (!h.ended) keeper.take(h);
              keeper.park();
              pages.release(input.pageId, clientId, keeper);
            }
            throw new AppError('SESSION_CLOSED', 'The window closed.');
          }
          if (!handed) return { taken: true, sessions: [] };
          pageId = input.pageId;
          const sessions: AttachedSession[] = [];
          for (const h of handed) {
            const opened = h.meta as OpenedAs | undefined;
            if (!opened) continue;
            if (!h.ended) output.take(h);
            sessions.push({
              ...opened.info,
              reopen: opened.reopen,
              charset: h.charset,
              scrollback: h.scrollback.text(),
              ...(h.ended ? { ended: h.ended } : { logs: runningLogsOf(engine).kindsOf(h.id) }),
            });
          }
          return { taken: false, sessions };
        },
        'session.cancelOpen'({ openId }) {
          const abort = opens.get(openId);
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
        'settings.get'() {
          return settings.get();
        },
        'settings.set'(next) {
          return settings.set(next);
        },
        async 'hostKeys.forget'({ instanceId }) {
          return { removed: await engine.forgetHostKey(instanceId) };
        },
        'export.sshConfigEnv'() {
          return sshConfigEnv();
        },
        async 'export.loginUsers'({ instances }) {
          const s = settings.get();
          const { exportLoginUsers } = await import('./export/loginUsers.js');
          return { users: await exportLoginUsers(instances, s, { profile: s.profile ?? undefined }) };
        },
      };

      // The bench.* calls come from the benchmark section (added by default below).
      const handlers = { ...base } as Handlers;
      const disposers: Array<() => void> = [];
      for (const section of deps.sections ?? defaultSections())
        Object.assign(
          handlers,
          section({
            deps,
            emit,
            clientId,
            ownsSession: (id) => output.owns(id),
            onDispose: (fn) => disposers.push(fn),
            onSessionOpened: (fn) => opened.push(fn),
          }),
        );

      const client: AppClient = {
        id: clientId,
        handlers,
        heldBytes: () => output.heldBytes(),
        dispose() {
          if (!clients.delete(client)) return;
          disposed = true;
          prompts.cancel('The window closed.');
          for (const abort of opens.values()) abort.abort();
          if (pageId !== null) {
            // A page that named itself may come back (a reload): its sessions wait for it.
            const keep = output.ownedCount() > 0;
            if (keep) output.park();
            pages.release(pageId, clientId, keep ? output : null);
            if (!keep) output.dispose();
          } else output.dispose();
          for (const fn of disposers) fn();
        },
      };
      clients.add(client);
      return client;
    },
    close() {
      for (const c of [...clients]) c.dispose();
      pages.close();
    },
  };
}
