import { z } from 'zod';
import { INSTANCE_ID, REGION_NAME } from '../vocab.js';
import { AppErrorDataSchema, call } from '../rpc.js';
import { TUNNEL_FIELDS, TUNNEL_PROBLEM_CODES } from './spec.js';

// The tunnels part of the app contract (spread into src/common/contract.ts). Saved tunnels belong
// to an instance; they run in the engine (not in a terminal tab), so closing a tab or the window
// leaves them running until stopped. `tunnels.status` pushes state and byte counts.

const TunnelId = z.string().regex(/^[a-z0-9-]{6,64}$/);
const HostText = z.string().min(1).max(255);

export const SavedTunnelSchema = z.object({
  id: TunnelId,
  instanceId: z.string().regex(INSTANCE_ID),
  region: z.string().regex(REGION_NAME),
  /** The instance's Name when the tunnel was saved (shown; the id is what connects). */
  label: z.string().max(256),
  kind: z.enum(['local', 'dynamic', 'remote']),
  bind: HostText.optional(),
  port: z.number().int().min(0).max(65535),
  host: HostText.optional(),
  hostPort: z.number().int().min(1).max(65535).optional(),
});
export type SavedTunnel = z.infer<typeof SavedTunnelSchema>;

export const TunnelStateSchema = z.enum(['stopped', 'connecting', 'open', 'reconnecting', 'failed']);
export type TunnelRunState = z.infer<typeof TunnelStateSchema>;

export const TunnelStatusSchema = z.object({
  id: TunnelId,
  state: TunnelStateSchema,
  /** Where it listens once bound: "127.0.0.1:8080" (local, SOCKS) or the server's address (remote). */
  address: z.string().nullable(),
  bytesIn: z.number().nonnegative(),
  bytesOut: z.number().nonnegative(),
  active: z.number().int().nonnegative(),
  error: AppErrorDataSchema.nullable(),
});
export type TunnelStatusPayload = z.infer<typeof TunnelStatusSchema>;

/** What a refused save or start carries: the fields at fault, a listen problem, or "stop it first". */
export const TunnelErrorDetailsSchema = z.object({
  problems: z.array(z.object({ field: z.enum(TUNNEL_FIELDS), code: z.enum(TUNNEL_PROBLEM_CODES) })).optional(),
  problem: z.string().optional(),
  running: z.boolean().optional(),
});

export const tunnelCalls = {
  'tunnels.list': call(z.object({}), z.object({ tunnels: z.array(SavedTunnelSchema), status: z.array(TunnelStatusSchema) })),
  /** Adds (id absent) or replaces a saved tunnel; a running one must be stopped first. */
  'tunnels.save': call(SavedTunnelSchema.extend({ id: TunnelId.optional() }), SavedTunnelSchema),
  'tunnels.remove': call(z.object({ id: TunnelId }), z.null()),
  /** Resolves when the listener is bound and the first connection is up (or fails with why). */
  'tunnels.start': call(z.object({ id: TunnelId }), TunnelStatusSchema),
  'tunnels.stop': call(z.object({ id: TunnelId }), TunnelStatusSchema),
};

export const tunnelEvents = {
  'tunnels.status': TunnelStatusSchema,
};
