import * as z from 'zod';
import { InstanceSchema, CandidateSchema } from './model/instance.js';
import { SettingsSchema } from './model/settings.js';
import { TRANSPORTS } from './model/transport.js';
import { benchCalls, benchEvents } from './bench/contract.js';
import { LogKindSchema, LogOnOpenSchema, logCalls } from './log/contract.js';
import { CharsetSchema } from './charset.js';
import { filesCalls, filesEvents } from './files/contract.js';
import { tunnelCalls, tunnelEvents } from './tunnels/contract.js';
import { securityGroupCalls } from './securityGroups/contract.js';
import { importCalls } from './import/contract.js';
import { workspaceCalls } from './workspace/contract.js';
import { PageIdSchema } from './pageId.js';
import { ALL_REGIONS, INSTANCE_ID, REGION_NAME } from './vocab.js';
import { LOGIN_USER, USER_SOURCES } from './login.js';
import { AppErrorDataSchema, call, type CallInput, type CallOutput, type CallParsed, type EventPayload, type HandlerMap } from './rpc.js';

// THE contract between any UI and the one backend (src/node/service.ts). Every call has a zod
// input and output schema, every pushed event a payload schema; both transports (Electron IPC,
// WebSocket) carry exactly these. Calls are grouped in sections; to add a feature, declare a
// section object here (or import one from its own module) and spread it into `calls`/`events`,
// then give src/node/service.ts a handler section for it.

const Name = z.string().min(1).max(256);
export const RegionNameSchema = z.string().regex(REGION_NAME, 'a region like eu-west-1');
export const InstanceIdSchema = z.string().regex(INSTANCE_ID, 'an instance id like i-0123456789abcdef0');

/** Which account/regions a call looks at; omitted fields come from Settings. */
export const ScopeSchema = z.object({
  profile: Name.optional(),
  regions: z
    .array(z.union([RegionNameSchema, z.literal(ALL_REGIONS)]))
    .max(40)
    .optional(),
});
const InstanceRefSchema = ScopeSchema.extend({ id: InstanceIdSchema, region: RegionNameSchema });

// ---- instances -------------------------------------------------------------------------------
const InstanceListSchema = z.object({
  instances: z.array(InstanceSchema),
  /** When this list was fetched from EC2 (epoch ms); older than "now" when served from cache. */
  fetchedAt: z.number(),
  fromCache: z.boolean(),
});
export type InstanceList = z.infer<typeof InstanceListSchema>;

const instanceCalls = {
  /** Cache-first: answers at once, then pushes `instances.updated` when EC2 answers (unless refresh). */
  'instances.list': call(ScopeSchema.extend({ refresh: z.boolean().default(false) }), InstanceListSchema),
  'instances.start': call(InstanceRefSchema, InstanceSchema),
  'instances.stop': call(InstanceRefSchema, InstanceSchema),
  /** Profile names from ~/.aws/{config,credentials} plus Settings; never any credential. */
  'aws.profiles': call(z.object({}), z.object({ profiles: z.array(z.string()), defaultRegion: z.string().nullable(), defaultProfile: z.string().optional() })),
  /** Regions enabled for the account (DescribeRegions, cached for a day; refresh asks again). */
  'aws.regions': call(z.object({ profile: Name.optional(), refresh: z.boolean().default(false) }), z.object({ regions: z.array(RegionNameSchema) })),
};
const instanceEvents = {
  'instances.updated': InstanceListSchema.extend({ scopeKey: z.string() }),
};

// ---- terminal sessions ------------------------------------------------------------------------
const SessionId = z.string().min(1).max(64);
const Cols = z.number().int().min(2).max(1000);
const Rows = z.number().int().min(1).max(500);

const SessionOpenInputSchema = ScopeSchema.extend({
  /** Instance id or Name tag value. */
  ref: Name,
  /** Region of `ref` when it is an id from the list (skips a search across regions). */
  region: RegionNameSchema.optional(),
  /** Caller-chosen id that `session.progress` events carry (e.g. "starting i-…"). */
  openId: z.string().min(1).max(64),
  cols: Cols,
  rows: Rows,
  /** Start a stopped instance and wait for it. */
  start: z.boolean().default(false),
  /** The candidate id chosen after an AMBIGUOUS error. */
  pick: InstanceIdSchema.optional(),
  /** The fingerprint the user confirmed after a HOST_KEY_UNKNOWN error. */
  acceptNewHostKey: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/=]{20,64}$/)
    .optional(),
  private: z.boolean().optional(),
  /** The user of `user@NAME` typed into the connect box: beats every other source (src/common/login.ts). */
  user: z.string().regex(LOGIN_USER, 'a POSIX user name').optional(),
  /** Log in with a key pushed through EC2 Instance Connect (the person pressed the button offered after a refused login). */
  eic: z.boolean().optional(),
  /** Start the session's log as it opens (a logged tab's Reconnect); see src/common/log/contract.ts. */
  log: LogOnOpenSchema.optional(),
  /** The server's character set (src/common/charset.ts); UTF-8 unless given. */
  charset: CharsetSchema.optional(),
  /** Open the instance's EC2 Serial Console instead of SSH (src/common/serialConsole/rules.ts). */
  serialConsole: z.boolean().optional(),
});
const SessionInfoSchema = z.object({
  sessionId: SessionId,
  label: z.string(),
  instanceId: z.string().nullable(),
  host: z.string(),
  transport: z.enum(TRANSPORTS).optional(),
  /** Who the session logged in as, and which rule chose that user (the tab says so). */
  user: z.string().optional(),
  userSource: z.enum(USER_SOURCES).optional(),
  /** A serial console session: its endpoint, the host key it showed, and the test-only fingerprints file when one replaced AWS's table. */
  serialConsole: z.object({ region: z.string(), endpoint: z.string(), fingerprint: z.string(), overriddenBy: z.string().optional() }).optional(),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

/** How a session ended (the `session.closed` event without its id). */
const SessionEndSchema = z.object({
  reason: z.string(),
  cause: z.enum(['exited', 'closed', 'lost']).optional(),
  exitCode: z.number().int().nullable().optional(),
  error: AppErrorDataSchema.optional(),
});

/** A session a reloaded page takes back: what it opened, how to reopen it, and what it printed lately. */
const AttachedSessionSchema = SessionInfoSchema.extend({
  /** What the tab's Reconnect asks for (the open's own ref, region, chosen instance and user). */
  reopen: z.object({
    ref: Name,
    region: RegionNameSchema.optional(),
    pick: InstanceIdSchema.optional(),
    user: z.string().regex(LOGIN_USER).optional(),
  }),
  charset: CharsetSchema,
  /** The session's recent output (bounded), replayed into the new terminal before live output. */
  scrollback: z.string(),
  /** Set when the session ended while no page was attached. */
  ended: SessionEndSchema.optional(),
  /** The records (text log, recording) still running for the session: the page's ticks show them. */
  logs: z.array(LogKindSchema).max(2).optional(),
});
export type AttachedSession = z.infer<typeof AttachedSessionSchema>;

const sessionCalls = {
  'session.open': call(SessionOpenInputSchema, SessionInfoSchema),
  'session.write': call(z.object({ sessionId: SessionId, data: z.string().max(1 << 20) }), z.null()),
  /** The tab's character set changed: output is decoded from it and typed text encoded to it from now on. */
  'session.charset': call(z.object({ sessionId: SessionId, charset: CharsetSchema }), z.null()),
  'session.resize': call(z.object({ sessionId: SessionId, cols: Cols, rows: Rows }), z.null()),
  /** The renderer has painted `bytes` characters of output: lets the backend resume a paused stream. */
  'session.ack': call(z.object({ sessionId: SessionId, chars: z.number().int().nonnegative() }), z.null()),
  'session.close': call(z.object({ sessionId: SessionId }), z.null()),
  /**
   * Names this connection's page and takes back the sessions the same page left behind when its
   * connection went away (a reload) within the grace period. `taken`: another live page holds
   * this identity (a duplicated browser tab copies sessionStorage): choose a new one.
   */
  'session.attach': call(z.object({ pageId: PageIdSchema }), z.object({ taken: z.boolean(), sessions: z.array(AttachedSessionSchema).max(256) })),
  /** Gives up an open in flight (start, address, port, host-key or passphrase wait); the open then fails with CANCELLED. */
  'session.cancelOpen': call(z.object({ openId: z.string().min(1).max(64) }), z.object({ cancelled: z.boolean() })),
  /** Answers a `session.passphrase` prompt; null = cancel. The passphrase is used once, never stored. */
  'session.passphrase': call(z.object({ promptId: z.string().min(1).max(64), passphrase: z.string().max(1024).nullable() }), z.null()),
  /** Answers a `session.secret` prompt (a password, or the server's keyboard-interactive prompts); null = cancel. Used once, never stored. */
  'session.secret': call(z.object({ promptId: z.string().min(1).max(64), answers: z.array(z.string().max(1024)).max(16).nullable() }), z.null()),
};
const sessionEvents = {
  /** Terminal output, decoded from the session's character set and coalesced by the backend. */
  'session.data': z.object({ sessionId: SessionId, data: z.string() }),
  /** Sent after the session's last output. `cause`/`exitCode` let the UI word the notice itself; `reason` is the backend's English. */
  'session.closed': SessionEndSchema.extend({ sessionId: SessionId }),
  /** `message` is the backend's English; `step` (see src/common/progress.ts) lets the UI word it. */
  'session.progress': z.object({
    openId: z.string(),
    message: z.string(),
    step: z.object({ key: z.string().max(40), params: z.record(z.string(), z.union([z.string(), z.number()])) }).optional(),
  }),
  /** The key for `openId` is encrypted: ask the user, answer with `session.passphrase`. */
  'session.passphrase': z.object({ openId: z.string(), promptId: z.string(), keyPath: z.string(), attempt: z.number().int() }),
  /** The server asks for a password or keyboard-interactive answers: ask in the tab, answer with `session.secret`. Names and prompts are the server's text. */
  'session.secret': z.object({
    openId: z.string(),
    promptId: z.string(),
    kind: z.enum(['password', 'keyboard-interactive']),
    user: z.string(),
    name: z.string().optional(),
    instructions: z.string().optional(),
    prompts: z.array(z.object({ prompt: z.string(), echo: z.boolean() })).max(16),
    attempt: z.number().int(),
  }),
};

// ---- settings ---------------------------------------------------------------------------------
const settingsCalls = {
  'settings.get': call(z.object({}), SettingsSchema),
  'settings.set': call(SettingsSchema, SettingsSchema),
};

// ---- host keys --------------------------------------------------------------------------------
const hostKeyCalls = {
  /** The explicit "forget this host key" — the only way a changed key is ever accepted. */
  'hostKeys.forget': call(z.object({ instanceId: InstanceIdSchema }), z.object({ removed: z.boolean() })),
};

// ---- exports -----------------------------------------------------------------------------------
const exportCalls = {
  /**
   * What an exported OpenSSH config needs from the backend's machine: the absolute command its
   * ProxyCommand runs (null when none can run, with `unavailable` saying why) and TagSSH's known_hosts.
   */
  'export.sshConfigEnv': call(
    z.object({}),
    z.object({ tagsshCommand: z.array(z.string().min(1)).min(1).nullable(), knownHostsFile: z.string().min(1), unavailable: z.string().optional() }),
  ),
  /**
   * The login user of each instance as a connection picks it (src/common/login.ts, the AMI looked
   * up), and the local file of its EC2 key pair when there is one, so exports match the CLI's.
   */
  'export.loginUsers': call(
    z.object({ instances: z.array(InstanceSchema).max(10_000) }),
    z.object({ users: z.record(z.string(), z.object({ user: z.string(), source: z.enum(USER_SOURCES), keyPairFile: z.string().max(4096).optional() })) }),
  ),
};

// ---- the whole contract -----------------------------------------------------------------------
export const calls = {
  ...instanceCalls,
  ...sessionCalls,
  ...settingsCalls,
  ...hostKeyCalls,
  ...exportCalls,
  ...benchCalls,
  ...logCalls,
  ...filesCalls,
  ...tunnelCalls,
  ...securityGroupCalls,
  ...importCalls,
  ...workspaceCalls,
};
/** The engine's process was replaced (it crashed or hung): calls in flight failed, sessions closed. */
export const ENGINE_RESTARTED = 'engine.restarted';
const engineEvents = {
  [ENGINE_RESTARTED]: z.object({ reason: z.string() }),
} as const;
export const events = {
  ...instanceEvents,
  ...sessionEvents,
  ...benchEvents,
  ...filesEvents,
  ...tunnelEvents,
  ...engineEvents,
};
export const contract = { calls, events };

export type Calls = typeof calls;
export type Events = typeof events;
type Method = keyof Calls & string;
export type EventName = keyof Events & string;
export type Input<M extends Method> = CallInput<Calls, M>;
export type Parsed<M extends Method> = CallParsed<Calls, M>;
export type Output<M extends Method> = CallOutput<Calls, M>;
export type Payload<E extends EventName> = EventPayload<Events, E>;
export type Handlers = HandlerMap<Calls>;
/** Calls implemented by the benchmark handler section (src/node/bench/serviceSection.ts). */
export type BenchMethod = keyof typeof benchCalls & string;
/** Calls implemented by the session-log handler section (src/node/log/serviceSection.ts). */
export type LogMethod = keyof typeof logCalls & string;
/** Calls implemented by the file panel's handler section (src/node/files/serviceSection.ts). */
export type FilesMethod = keyof typeof filesCalls & string;
/** Calls implemented by the security-group handler section (src/node/aws/securityGroups/securityGroupsSection.ts). */
export type SecurityGroupsMethod = keyof typeof securityGroupCalls & string;
/** Calls implemented by the import handler section (src/node/import/serviceSection.ts). */
export type ImportMethod = keyof typeof importCalls & string;
/** Calls implemented by the workspace handler section (src/node/workspace/serviceSection.ts). */
export type WorkspaceMethod = keyof typeof workspaceCalls & string;
/** Calls implemented by the tunnels handler section (src/node/tunnels/serviceSection.ts). */
export type TunnelsMethod = keyof typeof tunnelCalls & string;
export type Emit = <E extends EventName>(event: E, payload: Payload<E>) => void;

export { CandidateSchema };
