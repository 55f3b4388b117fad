import { join } from 'node:path';
import type { TransportName } from '../../common/model/transport.js';
import type { ConnectTarget } from '../ssh/types.js';
import { readJsonFile, writeJsonFile } from '../store/jsonFile.js';
import { tagsshPaths } from '../store/paths.js';

// The route a copy's bytes take to an instance (straight to its SSH port, through a jump host,
// through an EC2 Instance Connect Endpoint, through an SSM session) and what it is expected to
// take over it: the rate the last copy over the same route to the same instance measured, kept
// in the cache directory (copy-rates.json), each direction apart. A route never measured has no estimate: the first
// copy over it measures one.

export interface CopyRoute {
  kind: TransportName;
  /** Shown to people: "direct SSH to 203.0.113.5:22", "via jump host bastion", … */
  text: string;
  /** Which measured rate applies: the instance (or address) and the route. */
  key: string;
}

/** The route the connection to `target` takes (the first hop decides it). */
export function routeOf(target: ConnectTarget): CopyRoute {
  const who = target.instanceId ?? `${target.host}:${target.port}`;
  if (target.transport) {
    const kind = target.transport.name;
    return { kind, text: kind === 'ssm' ? 'through SSM Session Manager' : `through ${target.transport.label}`, key: `${who} ${kind}` };
  }
  const jumps = target.jump ?? [];
  if (jumps.length > 0)
    return { kind: 'jump', text: `via jump host ${jumps.map((j) => j.label).join(' → ')}`, key: `${who} jump ${jumps.map((j) => j.label).join(',')}` };
  return { kind: 'direct', text: `direct SSH to ${target.host}:${target.port}`, key: `${who} direct` };
}

/** h:mm:ss or m:ss. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** A byte count in MiB with one decimal: a copy's size, done part and rate read in one unit. */
export function mib(n: number): string {
  return `${(n / 1048576).toFixed(1)} MiB`;
}

/** The line shown before a large copy: its route, and its expected time at `rate` (bytes/s) when one was measured. */
export function routeLine(route: CopyRoute, bytes: number, rate: number | null): string {
  const what = `Copying ${mib(bytes)} ${route.text}`;
  if (!rate || rate <= 0) return `${what}: no earlier copy over this route measured its rate; this one will.`;
  return `${what}: expected ${clock(bytes / rate)} at ${mib(rate)}/s (measured by the last copy over this route).`;
}

const SCHEMA = 1;
/** Copies smaller than this say little about a route's rate (round trips, not bandwidth): not kept. */
const MEASURE_FROM_BYTES = 8 * 1024 * 1024;
const MAX_ROUTES = 200;

type Rates = Record<string, { rate: number; at: string }>;

function ratesPath(env: NodeJS.ProcessEnv): string {
  return join(tagsshPaths(env).cache, 'copy-rates.json');
}

function readRates(env: NodeJS.ProcessEnv): Rates {
  try {
    const raw = readJsonFile<unknown>(ratesPath(env), SCHEMA, () => ({}));
    return raw && typeof raw === 'object' ? (raw as Rates) : {};
  } catch {
    return {}; // a damaged cache only costs the estimate
  }
}

type CopyDirection = 'upload' | 'download';

/** The rate (bytes/s) the last copy over `route` in `direction` measured; null when none did. */
export function measuredRate(route: CopyRoute, direction: CopyDirection, env: NodeJS.ProcessEnv = process.env): number | null {
  const r = readRates(env)[`${route.key} ${direction}`]?.rate;
  return typeof r === 'number' && Number.isFinite(r) && r > 0 ? r : null;
}

/** Keeps what a copy of `bytes` in `ms` measured over `route` in `direction` (small copies are not kept). */
export function rememberRate(
  route: CopyRoute,
  direction: CopyDirection,
  bytes: number,
  ms: number,
  env: NodeJS.ProcessEnv = process.env,
  now = new Date(),
): void {
  if (bytes < MEASURE_FROM_BYTES || ms <= 0) return;
  const rates = readRates(env);
  rates[`${route.key} ${direction}`] = { rate: (bytes * 1000) / ms, at: now.toISOString() };
  // The oldest routes go first once there are many.
  const keep = Object.entries(rates)
    .sort((a, b) => b[1].at.localeCompare(a[1].at))
    .slice(0, MAX_ROUTES);
  try {
    writeJsonFile(ratesPath(env), SCHEMA, Object.fromEntries(keep));
  } catch {
    // A read-only cache directory costs the next estimate, not this copy.
  }
}
