import type { TransportName } from '../../common/model/transport.js';
import type { UserSource } from '../../common/login.js';
import type { Scope } from '../../common/vocab.js';
import type { AppErrorData } from '../../common/errors.js';
import type { Emit, Handlers, InstanceList, Parsed } from '../../common/contract.js';
import type { ConnectTarget } from '../ssh/types.js';
import type { AskSecret } from '../ssh/authHandler.js';
import type { SshConnection } from '../ssh/connection.js';
import type { Instance } from '../../common/model/instance.js';
import type { Settings } from '../../common/model/settings.js';
import type { SettingsStore } from '../store/settings.js';
import type { OnProgress } from '../../common/progress.js';

// The shapes the service is built from, apart from the service itself: what it needs of the
// engine (Engine, SessionPort), what a section of handlers is given (HandlerSection), and the
// scope rule every section shares. Sections import these, and the service imports the sections:
// kept in one file of their own, that is a line, not a circle.

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
  openSession(req: OpenRequest): Promise<{
    sessionId: string;
    label: string;
    instanceId: string | null;
    host: string;
    transport?: TransportName;
    user?: string;
    userSource?: UserSource;
    serialConsole?: { region: string; endpoint: string; fingerprint: string; overriddenBy?: string };
  }>;
}

export interface OpenRequest extends EngineScope {
  ref: string;
  cols: number;
  rows: number;
  start: boolean;
  pick?: string;
  acceptNewHostKey?: string;
  private?: boolean;
  /** `user@NAME`'s user. */
  user?: string;
  /** Push an EC2 Instance Connect key first (the person agreed). */
  eic?: boolean;
  /** Open the EC2 Serial Console instead of SSH. */
  serialConsole?: boolean;
  settings: Settings;
  onProgress: OnProgress;
  /** Asks the UI for a password or keyboard-interactive answers (in the tab; never stored). */
  askSecret?: AskSecret;
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
  /** The PTY size of an open session (a recording's first size). */
  sizeOf?(id: string): { cols: number; rows: number } | undefined;
  /** A connection to the target from the pool; `fresh` opens a new one (which then becomes the pooled one). */
  acquire?(target: ConnectTarget, opts?: { fresh?: boolean }): Promise<{ connection: SshConnection; release: () => void }>;
  list?(): Array<{ id: string }>;
  on(event: 'data', cb: (id: string, chunk: Buffer) => void): unknown;
  on(event: 'exit', cb: (id: string, code: number | null) => void): unknown;
  on(event: 'error', cb: (id: string, err: AppErrorData) => void): unknown;
  on(event: 'closed', cb: (id: string, reason: string) => void): unknown;
  on(event: 'resize', cb: (id: string, cols: number, rows: number) => void): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- EventEmitter listener type
  off(event: string, cb: (...args: any[]) => void): unknown;
}

export interface AppServiceDeps {
  engine: Engine;
  settings: SettingsStore;
  /** Extra handler sections (e.g. benchmarks) built per connection; see `HandlerSection`. */
  sections?: HandlerSection[];
  /** How long a page's sessions wait for it after its connection goes away (src/node/service/parkedPages.ts). */
  reattachGraceMs?: number;
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
