// Transports for instances without a public address, each next to the plain path it replaces.
// SSM rows: bench/lib/ssmThroughput.mjs (ssh over a Session Manager port session vs plain TCP).
import { ssmRows } from '../lib/ssmThroughput.mjs';

export const title = 'Transports: EC2 Instance Connect Endpoint, SSM (vs direct TCP)';

export async function run(ctx) {
  const rows = [];
  rows.push(...(await ssmRows(ctx)));
  return rows;
}
