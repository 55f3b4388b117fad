import { StringDecoder } from 'node:string_decoder';
import { randomUUID } from 'node:crypto';
import type { Scope } from '../common/vocab.js';
import { AppError, toAppError, type AppErrorData } from '../common/errors.js';
import type { BenchMethod, Emit, Handlers, InstanceList, Parsed } from '../common/contract.js';
import { benchSection } from './bench/serviceSection.js';
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
  openSession(req: OpenRequest): Promise<{ sessionId: string; label: string; instanceId: string | null; host: string }>;
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

/** Builds part of the handlers for one connection. `emit` reaches only that connection. */
export type HandlerSection = (ctx: { deps: AppServiceDeps; emit: Emit; clientId: string }) => Partial<Handlers>;

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

// Output is coalesced per session and flushed on the next macrotask (a few ms under load), so a
// flood becomes a few large messages instead of thousands of tiny ones. While the UI still has
// MAX_IN_FLIGHT batches it has not painted, output keeps collecting (up to MAX_BATCH) and goes
// out with the next ack: a UI that is behind gets fewer, larger messages (less per-message work
// on its busy thread), an idle one gets every keystroke's echo at once. The UI acknowledges
// painted characters; each batch remembers how many SSH bytes it carried, so acks reach the
// session manager in its unit (bytes) and it can pause the channel while the UI is behind.
const MAX_BATCH = 256 * 1024;
const MAX_IN_FLIGHT = 4;
/** Output held for a session whose open has not returned yet (its first screen, normally a few bytes). */
export const EARLY_LIMIT = 256 * 1024;
const EARLY_TOTAL_LIMIT = 1024 * 1024;

interface OwnedSession {
  decoder: StringDecoder;
  pending: string[];
  pendingLen: number;
  pendingBytes: number;
  scheduled: boolean;
  /** Sent but unpainted batches, oldest first: [chars, bytes]. */
  inFlight: Array<[number, number]>;
  /** Acked characters not yet covering the oldest batch (the UI may paint a batch in slices). */
  ackedChars: number;
}

export function newOwnedSession(): OwnedSession {
  return { decoder: new StringDecoder('utf8'), pending: [], pendingLen: 0, pendingBytes: 0, scheduled: false, inFlight: [], ackedChars: 0 };
}

/** Why a session ended, from the session manager's reason and the exit status (if any arrived). */
function causeOf(reason: string | undefined, exit: number | null | undefined): 'exited' | 'closed' | 'lost' {
  if (reason === 'closed') return 'closed';
  // A shell that ends with its connection and without an exit status (null) was lost, not exited.
  if (reason === 'connection lost' && (exit === undefined || exit === null)) return 'lost';
  return 'exited';
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
      const owned = new Map<string, OwnedSession>();
      let disposed = false;

      const flush = (id: string, s: OwnedSession) => {
        s.scheduled = false;
        if (!s.pendingLen) return;
        const data = s.pending.join('');
        s.inFlight.push([data.length, s.pendingBytes]);
        s.pending = [];
        s.pendingLen = 0;
        s.pendingBytes = 0;
        emit('session.data', { sessionId: id, data });
      };
      // ssh2 can deliver the first output in the same tick the shell opens, before session.open
      // has returned the id to us: while an open is in flight, hold output of sessions nobody has
      // claimed yet. An open can wait minutes (a passphrase prompt), so what is held is bounded:
      // other windows' sessions are never held, and a session's held output stops at EARLY_LIMIT.
      let opening = 0;
      const early = new Map<string, { chunks: Buffer[]; bytes: number }>();
      let earlyBytes = 0;
      const onData = (id: string, chunk: Buffer) => {
        const s = owned.get(id);
        if (!s) {
          if (opening === 0 || claimed.has(id)) return;
          const e = early.get(id) ?? { chunks: [], bytes: 0 };
          if (e.bytes + chunk.length > EARLY_LIMIT || earlyBytes + chunk.length > EARLY_TOTAL_LIMIT) return;
          e.chunks.push(chunk);
          e.bytes += chunk.length;
          earlyBytes += chunk.length;
          early.set(id, e);
          return;
        }
        s.pendingBytes += chunk.length;
        const text = s.decoder.write(chunk);
        if (!text) return;
        s.pending.push(text);
        s.pendingLen += text.length;
        if (s.pendingLen >= MAX_BATCH) flush(id, s);
        else if (!s.scheduled && s.inFlight.length < MAX_IN_FLIGHT) {
          s.scheduled = true;
          setImmediate(() => flush(id, s));
        }
      };
      const ended = (id: string, reason: string, error: AppErrorData | undefined, how: { exit: number | null | undefined; cause: 'exited' | 'closed' | 'lost' }) => {
        const s = owned.get(id);
        if (!s) return;
        const tail = s.decoder.end();
        if (tail) {
          s.pending.push(tail);
          s.pendingLen += tail.length;
        }
        flush(id, s);
        owned.delete(id);
        claimed.delete(id);
        exits.delete(id);
        emit('session.closed', { sessionId: id, reason, cause: how.cause, ...(how.exit !== undefined ? { exitCode: how.exit } : {}), ...(error ? { error } : {}) });
      };
      const lastError = new Map<string, AppErrorData>();
      // Passphrase prompts waiting for this UI; a passphrase is handed to the key loader once.
      const prompts = new Map<string, { openId: string; resolve: (p: string) => void; reject: (e: AppError) => void }>();
      // Opens in flight, by the UI's openId, so the UI can cancel a long wait.
      const opens = new Map<string, AbortController>();
      // Opens that asked EC2 to start the instance: a cancel says the instance keeps starting.
      const started = new Set<string>();
      // Opens whose passphrase prompt the person cancelled.
      const declined = new Set<string>();
      const cancelledOpen = (openId: string) => new AppError('CANCELLED', started.has(openId) ? 'Cancelled; the instance keeps starting.' : 'Cancelled.', undefined, { instanceStarting: started.has(openId) });
      const PROMPT_TIMEOUT_MS = 5 * 60_000;
      const askPassphrase = (openId: string) => (keyPath: string, attempt: number) =>
        new Promise<string>((resolve, reject) => {
          const promptId = randomUUID();
          const timer = setTimeout(() => settle(() => reject(new AppError('CANCELLED', 'Nobody answered the passphrase prompt.', 'Connect again.'))), PROMPT_TIMEOUT_MS);
          const settle = (fn: () => void) => {
            clearTimeout(timer);
            prompts.delete(promptId);
            fn();
          };
          prompts.set(promptId, { openId, resolve: (p) => settle(() => resolve(p)), reject: (e) => settle(() => reject(e)) });
          emit('session.passphrase', { openId, promptId, keyPath, attempt });
        });
      // The exit status can arrive while output is still queued in the channel (paused by flow
      // control, or just not yet read): the session ends on 'closed', after its last byte.
      const exits = new Map<string, number | null>();
      const onExit = (id: string, code: number | null) => {
        if (owned.has(id)) exits.set(id, code);
      };
      const onError = (id: string, err: AppErrorData) => {
        if (owned.has(id)) lastError.set(id, err);
      };
      const onClosed = (id: string, reason: string) => {
        const err = lastError.get(id);
        lastError.delete(id);
        const exit = exits.has(id) ? exits.get(id) : undefined;
        const cause = causeOf(reason, exit);
        const exitReason = cause === 'lost' ? 'Connection lost.' : exit === undefined ? undefined : exit === null ? 'The remote shell ended.' : `The remote shell exited with code ${exit}.`;
        ended(id, err?.message ?? exitReason ?? reason ?? 'Connection closed.', err, { exit, cause });
      };
      engine.sessions.on('data', onData);
      engine.sessions.on('exit', onExit);
      engine.sessions.on('error', onError);
      engine.sessions.on('closed', onClosed);

      const own = (sessionId: string): OwnedSession => {
        const s = owned.get(sessionId);
        if (!s) throw new AppError('SESSION_CLOSED', `Session ${sessionId} is not open.`, 'Reconnect from the tab or the instance list.');
        return s;
      };

      const base: Omit<Handlers, BenchMethod> = {
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
            askPassphrase: askPassphrase(input.openId),
            onStarted: () => started.add(input.openId),
          };
          if (input.pick) req.pick = input.pick;
          if (input.acceptNewHostKey) req.acceptNewHostKey = input.acceptNewHostKey;
          if (input.private !== undefined) req.private = input.private;
          const abort = new AbortController();
          req.signal = abort.signal;
          opens.set(input.openId, abort);
          opening++;
          try {
            const info = await engine.openSession(req);
            if (disposed || abort.signal.aborted) {
              // The UI went away (or gave up) while we were connecting: nobody will ever close this session.
              engine.sessions.close(info.sessionId);
              throw disposed ? new AppError('SESSION_CLOSED', 'The window closed while connecting.') : cancelledOpen(input.openId);
            }
            owned.set(info.sessionId, newOwnedSession());
            claimed.add(info.sessionId);
            for (const chunk of early.get(info.sessionId)?.chunks ?? []) onData(info.sessionId, chunk);
            return info;
          } catch (e) {
            // A wait that ended because the UI cancelled reports the cancel, not the wait's own error;
            // so does a login that failed because the person declined the key's passphrase.
            if ((abort.signal.aborted || declined.has(input.openId)) && !disposed) throw cancelledOpen(input.openId);
            throw e;
          } finally {
            opens.delete(input.openId);
            started.delete(input.openId);
            declined.delete(input.openId);
            if (--opening === 0) {
              early.clear();
              earlyBytes = 0;
            }
          }
        },
        'session.cancelOpen'({ openId }) {
          const abort = opens.get(openId);
          if (!abort) return { cancelled: false };
          abort.abort();
          for (const p of [...prompts.values()]) if (p.openId === openId) p.reject(new AppError('CANCELLED', 'Cancelled.'));
          return { cancelled: true };
        },
        'session.write'({ sessionId, data }) {
          own(sessionId);
          engine.sessions.write(sessionId, data);
          return null;
        },
        'session.resize'({ sessionId, cols, rows }) {
          own(sessionId);
          engine.sessions.resize(sessionId, cols, rows);
          return null;
        },
        'session.ack'({ sessionId, chars }) {
          const s = owned.get(sessionId);
          if (!s) return null; // acks may trail a closed session
          // The renderer may paint a batch in slices: a batch is done once acks cover it whole.
          let left = s.ackedChars + chars;
          let bytes = 0;
          while (s.inFlight.length && left >= s.inFlight[0]![0]) {
            const [c, b] = s.inFlight.shift()!;
            left -= c;
            bytes += b;
          }
          s.ackedChars = s.inFlight.length ? left : 0; // more than was sent is nothing to carry
          if (bytes) engine.sessions.ack?.(sessionId, bytes);
          // Output held back while the UI was behind goes out now (see MAX_IN_FLIGHT).
          if (s.pendingLen && !s.scheduled && s.inFlight.length < MAX_IN_FLIGHT) flush(sessionId, s);
          return null;
        },
        'session.passphrase'({ promptId, passphrase }) {
          const p = prompts.get(promptId);
          if (!p) throw new AppError('CANCELLED', 'That passphrase prompt is no longer open.', 'Connect again.');
          if (passphrase === null) {
            declined.add(p.openId);
            p.reject(new AppError('CANCELLED', 'Passphrase not given.'));
          }
          else p.resolve(passphrase);
          return null;
        },
        'session.close'({ sessionId }) {
          if (owned.has(sessionId)) engine.sessions.close(sessionId);
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
      for (const section of deps.sections ?? [benchSection()]) Object.assign(handlers, section({ deps, emit, clientId }));

      const client: AppClient = {
        id: clientId,
        handlers,
        heldBytes: () => earlyBytes,
        dispose() {
          if (!clients.delete(client)) return;
          disposed = true;
          engine.sessions.off('data', onData);
          engine.sessions.off('exit', onExit);
          engine.sessions.off('error', onError);
          engine.sessions.off('closed', onClosed);
          for (const p of [...prompts.values()]) p.reject(new AppError('CANCELLED', 'The window closed.'));
          for (const abort of opens.values()) abort.abort();
          for (const id of owned.keys()) claimed.delete(id);
          for (const id of owned.keys()) {
            try {
              engine.sessions.close(id);
            } catch (e) {
              void toAppError(e); // already gone
            }
          }
          owned.clear();
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
