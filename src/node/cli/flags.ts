import { InvalidArgumentError } from 'commander';
import { portNumber } from './portNumber.js';

// Flag parsers several commands share, so that a flag reads and fails alike wherever it appears.
// Each command's own flags (what commander hands its action) live in commands/<cmd>/flags.ts.

/** A repeatable flag: every value, in the order given. */
export const collect = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];

/** --port: a TCP port 1-65535 (commander reports anything else as a usage error, exit code 2). */
export function parsePort(v: string): number {
  const n = portNumber(v);
  if (n === undefined) throw new InvalidArgumentError('expected a port number 1-65535');
  return n;
}

/** --keepalive: seconds between probes of the server, above 0 and at most an hour. */
export function parseKeepaliveSeconds(v: string): number {
  const n = Number(v);
  if (!(n > 0 && n <= 3600)) throw new InvalidArgumentError('expected seconds between 0 and 3600');
  return n;
}
