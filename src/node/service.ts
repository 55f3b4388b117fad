import { randomUUID } from 'node:crypto';
import type { TransportName } from '../common/model/transport.js';
import type { Scope } from '../common/vocab.js';
import { AppError, type AppErrorData } from '../common/errors.js';
import type { CancelledDetails } from '../common/errorDetails.js';
import { SessionOutput } from './service/outputStream.js';
import { PromptBroker } from './service/promptBroker.js';
import type { BenchMethod, Emit, FilesMethod, Handlers, InstanceList, LogMethod, Parsed, SecurityGroupsMethod, TunnelsMethod } from '../common/contract.js';
import { benchSection } from './bench/serviceSection.js';
import { securityGroupsSection } from './aws/securityGroupsSection.js';
import { filesSection } from './files/serviceSection.js';
import { tunnelsSection } from './tunnel/serviceSection.js';
import { sessionLogSection } from './log/serviceSection.js';
import type { ConnectTarget } from './ssh/types.js';
import type { SshConnection } from './ssh/connection.js';
import { sshConfigEnv } from './export/exportEnv.js';
import type { Instance } from '../common/model/instance.js';
import type { Settings } from '../common/model/settings.js';
import type { SettingsStore } from './store/settings.js';
import type { OnProgress } from '../common/progress.js';

// createAppService(deps): the ONE backend behind the contract. The Electron main process and the
// browser-mode server both call it; only the transport and the settings store differ. Each UI
// connection gets its own handler set (connect()), so sessions belong to the window that opened
// them and die with it.

/** The scope the engine is asked about (one definition: src/common/vocab.ts). */
export type EngineScope = Scope;

/** What the service needs from the engine; src/node/engine.ts wires the real modules. */
export interface Engine {
  listInstances(scope: EngineScope, opts: { refresh: boolean; onUpdate: (list: InstanceList) => void }): Promise<InstanceList>;
  startInstance(id: string, scope: EngineScope & { region: string }): Promise<Instance>;
  stopInstance(id: string, scope: EngineScope & { region: string }): Promise<Instance>;
  listProfiles(): Promise<{ profiles: string[]; defaultRegion: string | null; defaultProfile?: string }>;
  /** Regions enabled for the account; `fresh` skips the day-long cache. */
  listRegions?(scope: EngineScope, fresh: boolean): Promise<string[]>;
  forgetHostKey(instanceId: string): Promise<boolean>;
  sessions: SessionPort;
  /** Resolves the ref and opens a shell; returns the session id and a label for the tab. */
  openSession(req: OpenRequest): Promise<{ sessionId: string; label: string; instanceId: string | null; host: string; transport?: TransportName }>;
}

export interface OpenRequest extends EngineScope {
  ref: string;
  cols: number;
  rows: number;
  start: boolean;
  pick?: string;
  acceptNewHostKey?: string;
  private?: boolean;
  settings: Settings;
  onProgress: OnProgress;
  /** Asks the UI for a key's passphrase (rejects when the user cancels or goes away). */
  askPassphrase: (keyPath: string, attempt: number) => Promise<string>;
  /** Aborted when the UI cancels the open: every wait (start, address, port, host key, connect) stops. */
  signal?: AbortSignal;
  /** Called once the instance was asked to start (a cancel then leaves it starting). */
  onStarted?: () => void;
}

/** The slice of the SSH SessionManager (src/node/ssh/sessionManager.ts) the service uses. */
export interface SessionPort {
  write(id: string, data: string | Buffer): void;
  resize(id: string, cols: number, rows: number): void;
  close(id: string): void;
  /** The UI has painted `bytes` of output: the manager resumes a channel it paused (flow control). */
  ack?(id: string, bytes: number): void;
  /** The pool behind the sessions (file panel): an open session's target, a new channel on its connection. */
  targetOf?(id: string): ConnectTarget | undefined;
  acquire?(target: ConnectTarget): Promise<{ connection: SshConnection; release: () => void }>;
  list?(): Array<{ id: string }>;
  on(event: 'data', cb: (id: string, chunk: Buffer) => void): unknown;
  on(event: 'exit', cb: (id: string, code: number | null) => void): unknown;
  on(event: 'error', cb: (id: string, err: AppErrorData) => void): unknown;
  on(event: 'closed', cb: (id: string, reason: string) => void): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- EventEmitter listener type
  off(event: string, cb: (...args: any[]) => void): unknown;
}

export interface AppServiceDeps {
  engine: Engine;
  settings: SettingsStore;
  /** Extra handler sections (e.g. benchmarks) built per connection; see `HandlerSection`. */
  sections?: HandlerSection[];
}

/** A session became its window's: its id, what it printed while opening, what the open asked for. */
export type SessionOpenedHook = (sessionId: string, early: readonly Buffer[], asked: Pick<Parsed<'session.open'>, 'log'>) => void;

/** Builds part of the handlers for one connection. `emit` reaches only that connection. */
export type HandlerSection = (ctx: {
  deps: AppServiceDeps;
  emit: Emit;
  clientId: string;
  /** Whether this UI connection opened the session: a section acts only on its own window's sessions. */
  ownsSession: (sessionId: string) => boolean;
  /** Runs `fn` when this UI connection goes away (a section lets go of what it listens to). */
  onDispose: (fn: () => void) => void;
  /**
   * Runs `fn` the moment a session this window opened is its own, in the same tick, with the
   * output it printed while opening and what the open asked for (its log): a section that
   * records the session misses no byte.
   */
  onSessionOpened?: (fn: SessionOpenedHook) => void;
}) => Partial<Handlers>;

export interface AppClient {
  id: string;
  handlers: Handlers;
  /** The UI went away: close its sessions, stop its streams. */
  dispose(): void;
  /** Bytes of output held for sessions whose open has not returned yet (diagnostics, tests). */
  heldBytes(): number;
}

export interface AppService {
  connect(emit: Emit): AppClient;
  close(): void;
}

export function scopeFrom(input: { profile?: string | undefined; regions?: string[] | undefined }, settings: Settings, region?: string): EngineScope {
  const scope: EngineScope = {};
  const profile = input.profile ?? settings.profile ?? undefined;
  if (profile) scope.profile = profile;
  const regions = region ? [region] : (input.regions ?? settings.regions);
  if (regions.length) scope.regions = regions;
  return scope;
}

export function scopeKeyOf(scope: EngineScope): string {
  return JSON.stringify([scope.profile ?? null, scope.regions ?? []]);
}

export function createAppService(deps: AppServiceDeps): AppService {
  const { engine, settings } = deps;
  const clients = new Set<AppClient>();
  // Sessions some window owns: their output is never held for another window's open.
  const claimed = new Set<string>();

  return {
    connect(emit) {
      const clientId = randomUUID();
      let disposed = false;
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

      const base: Omit<Handlers, BenchMethod | FilesMethod | SecurityGroupsMethod | LogMethod | TunnelsMethod> = {
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
            const early = output.adopt(info.sessionId);
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
        'session.cancelOpen'({ openId }) {
          const abort = opens.get(openId);
          if (!abort) return { cancelled: false };
          abort.abort();
          prompts.cancel('Cancelled.', openId);
          return { cancelled: true };
        },
        'session.write'({ sessionId, data }) {
          output.mustOwn(sessionId);
          engine.sessions.write(sessionId, data);
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
      };

      // The bench.* calls come from the benchmark section (added by default below).
      const handlers = { ...base } as Handlers;
      const disposers: Array<() => void> = [];
      for (const section of deps.sections ?? [benchSection(), filesSection(), tunnelsSection(), securityGroupsSection(), sessionLogSection()])
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
          output.dispose();
          for (const fn of disposers) fn();
        },
      };
      clients.add(client);
      return client;
    },
    close() {
      for (const c of [...clients]) c.dispose();
    },
  };
}
