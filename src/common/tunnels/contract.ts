import * as z from 'zod';
import { INSTANCE_ID, REGION_NAME } from '../vocab.js';
import { AppErrorDataSchema, call } from '../rpc.js';
import { bindingIsComplete } from './binding.js';
import { TUNNEL_FIELDS, TUNNEL_PROBLEM_CODES } from './spec.js';

// The tunnels part of the app contract (spread into src/common/contract.ts). Saved tunnels belong
// to an instance or to every instance with a tag (src/common/tunnels/binding.ts); they run in the
// engine (not in a terminal tab), so closing a tab or the window leaves them running until
// stopped. `tunnels.status` pushes state, link health and byte counts, per instance a tunnel runs on.
// "open" is connected; "reconnecting" is the link being rebuilt while the local port stays bound.

export const TunnelIdSchema = z.string().regex(/^[a-z0-9-]{6,64}$/);
const TunnelId = TunnelIdSchema;
const HostText = z.string().min(1).max(255);

const InstanceId = z.string().regex(INSTANCE_ID);
const Region = z.string().regex(REGION_NAME);
/** An EC2 tag as EC2 allows it: key 1–128 characters, value up to 256. */
const TunnelTagSchema = z.object({ key: z.string().min(1).max(128), value: z.string().max(256) });

const bindingRule = { message: 'A tunnel is bound to one instance (id and region) or to one tag, not both.', path: ['tag'] };

const SavedTunnelFields = z.object({
  id: TunnelId,
  /** Bound to one instance: its id and region (absent for a tag tunnel). */
  instanceId: InstanceId.optional(),
  region: Region.optional(),
  /** Bound to every instance carrying this tag (exact key and value). */
  tag: TunnelTagSchema.optional(),
  /** The instance's Name when the tunnel was saved, or the tag's "key=value" (shown; the binding is what connects). */
  label: z.string().max(256),
  kind: z.enum(['local', 'dynamic', 'remote']),
  bind: HostText.optional(),
  port: z.number().int().min(0).max(65535),
  host: HostText.optional(),
  hostPort: z.number().int().min(1).max(65535).optional(),
});
export const SavedTunnelSchema = SavedTunnelFields.refine(bindingIsComplete, bindingRule);
export type SavedTunnel = z.infer<typeof SavedTunnelSchema>;

const TunnelStateSchema = z.enum(['stopped', 'connecting', 'open', 'reconnecting', 'failed']);

const TunnelStatusSchema = z.object({
  id: TunnelId,
  /** The instance this run is on (a tag tunnel runs once per instance it is started on). */
  instanceId: InstanceId.optional(),
  state: TunnelStateSchema,
  /** Where it listens once bound: "127.0.0.1:8080" (local, SOCKS) or the server's address (remote). */
  address: z.string().nullable(),
  bytesIn: z.number().nonnegative(),
  bytesOut: z.number().nonnegative(),
  active: z.number().int().nonnegative(),
  /** Why it is not connected now (the link is being rebuilt, or it failed); null while connected. */
  error: AppErrorDataSchema.nullable(),
  /** Links rebuilt since it was started (after drops, and replacements ahead of a transport's time limit). */
  reconnects: z.number().int().nonnegative(),
  /** When the link in use came up (ms since the epoch); null while there is none. */
  connectedSince: z.number().nonnegative().nullable(),
  /** The last drop or failed attempt and when it happened, kept after the link is back. */
  lastError: z.object({ error: AppErrorDataSchema, at: z.number().nonnegative() }).nullable(),
  /** Clients waiting for the link while it is rebuilt. */
  waiting: z.number().int().nonnegative(),
});
export type TunnelStatusPayload = z.infer<typeof TunnelStatusSchema>;

/**
 * What a refused save or start carries: the fields at fault, a listen problem, or "stop it first".
 * `problem: 'tagPortTaken'` names the instance (`instanceId`) whose run of the same tag tunnel
 * already listens on the port.
 */
export const TunnelErrorDetailsSchema = z.object({
  problems: z.array(z.object({ field: z.enum(TUNNEL_FIELDS), code: z.enum(TUNNEL_PROBLEM_CODES) })).optional(),
  problem: z.string().optional(),
  running: z.boolean().optional(),
  instanceId: z.string().optional(),
});

/** Which run: the tunnel, and for a tag tunnel the instance (with its region) to run it on. */
const RunRef = z.object({ id: TunnelId, instanceId: InstanceId.optional(), region: Region.optional() });

export const tunnelCalls = {
  'tunnels.list': call(z.object({}), z.object({ tunnels: z.array(SavedTunnelSchema), status: z.array(TunnelStatusSchema) })),
  /** Adds (id absent) or replaces a saved tunnel; a running one must be stopped first. */
  'tunnels.save': call(SavedTunnelFields.extend({ id: TunnelId.optional() }).refine(bindingIsComplete, bindingRule), SavedTunnelSchema),
  'tunnels.remove': call(z.object({ id: TunnelId }), z.null()),
  /**
   * Resolves when the listener is bound and the first connection is up (or fails with why). A tag
   * tunnel needs the instance to run on; an instance tunnel runs on its own.
   */
  'tunnels.start': call(RunRef, TunnelStatusSchema),
  /** Stops one run (a tag tunnel's run on `instanceId`), or every run of the tunnel without one. */
  'tunnels.stop': call(RunRef, TunnelStatusSchema),
};

export const tunnelEvents = {
  'tunnels.status': TunnelStatusSchema,
};
