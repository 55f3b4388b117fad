import * as z from 'zod';
import type { AppErrorData } from '../errors.js';
import { transportDetailsOf } from '../transportErrors.js';
import { SERIAL_CONSOLE_ENDPOINTS } from './endpoints.js';

// The EC2 Serial Console's rules, in one place for the engine and every face: who logs in to the
// endpoint (INSTANCE_ID.port0), which endpoint and host key a region has, which instance types
// have a serial console, what a failure's details say, and when a failed SSH open should offer
// the serial console first.

/** Only port 0 exists (SendSerialConsoleSSHPublicKey's SerialPort: "Fixed value of 0"). */
export const SERIAL_PORT = 0;
/** The test-only override of the published fingerprint table (see README, "EC2 Serial Console"). */
export const FINGERPRINTS_FILE_ENV = 'TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE';
/** The test-only override of the SSH endpoint (host:port), like AWS_ENDPOINT_URL_* for the APIs. */
export const ENDPOINT_ENV = 'TAGSSH_SERIAL_CONSOLE_ENDPOINT';

/** The SSH user of an instance's serial console: its id and the port, e.g. i-0123….port0. */
export function serialConsoleUser(instanceId: string): string {
  return `${instanceId}.port${SERIAL_PORT}`;
}

export interface SerialEndpoint {
  region: string;
  host: string;
  port: number;
  /** The SHA256 fingerprint the endpoint's host key must have. */
  fingerprint: string;
}

/** The published endpoint of `region`, or undefined when AWS's table does not list it. */
export function publishedEndpoint(region: string): SerialEndpoint | undefined {
  const row = SERIAL_CONSOLE_ENDPOINTS.find(([r]) => r === region);
  return row ? { region, host: row[1], port: 22, fingerprint: row[2] } : undefined;
}

/** What DescribeInstanceTypes says about a type that matters here. */
interface InstanceTypeFacts {
  hypervisor?: string | null;
  bareMetal?: boolean | null;
}

/**
 * The serial console serves instances built on the Nitro System: virtualised ones (hypervisor
 * "nitro") and bare metal ones; Xen instances have none (EC2InstanceTypeInvalidException).
 */
export function typeHasSerialConsole(t: InstanceTypeFacts): boolean {
  return t.hypervisor === 'nitro' || t.bareMetal === true;
}

const SERIAL_PROBLEMS = ['disabled', 'unsupported-type', 'access-denied', 'unknown-region', 'host-key-mismatch', 'fingerprints-file', 'busy'] as const;

/** The details of every serial-console error; the faces word them from `problem`. */
const SerialConsoleDetailsSchema = z.object({
  serialConsole: z.enum(SERIAL_PROBLEMS),
  instanceId: z.string().optional(),
  region: z.string().optional(),
  instanceType: z.string().optional(),
  /** The IAM action that was refused. */
  permission: z.string().optional(),
  /** host-key-mismatch: what the endpoint showed and what was expected. */
  fingerprint: z.string().optional(),
  expected: z.string().optional(),
});
export type SerialConsoleDetails = z.infer<typeof SerialConsoleDetailsSchema>;

export function serialConsoleDetailsOf(err: AppErrorData): SerialConsoleDetails | undefined {
  const r = SerialConsoleDetailsSchema.safeParse(err.details);
  return r.success ? r.data : undefined;
}

/**
 * True when an open failed because nothing reached the instance's sshd (no route, no answer,
 * refused, or every private path missing): the serial console is then the way in that is left.
 */
export function serialConsoleHelps(err: AppErrorData): boolean {
  if (err.code === 'TIMEOUT' || err.code === 'CONNECT_FAILED') return true;
  const t = transportDetailsOf(err);
  return !!t && !('permission' in t) && t.missing !== 'jump-host';
}

/**
 * Watches a serial console's output for getty refusing a login ("Login incorrect"), across
 * chunk boundaries: the sign that the user has no password (or not that one) on the instance.
 */
export class LoginRefusedWatch {
  private tail = '';
  /** Feeds output; true when it completes a "Login incorrect". */
  feed(text: string): boolean {
    const s = this.tail + text;
    const hit = /Login incorrect/.test(s);
    this.tail = hit ? '' : s.slice(-20);
    return hit;
  }
}
