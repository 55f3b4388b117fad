// Transports for instances without a public address, each next to the plain path it replaces.
// SSM rows: perf/lib/ssmThroughput.mjs (ssh over a Session Manager port session vs plain TCP).
import { ssmRows } from '../lib/ssmThroughput.mjs';
// EICE rows: perf/lib/eiceThroughput.mjs (ssh over the EC2 Instance Connect Endpoint WebSocket vs plain TCP).
import { eiceRows } from '../lib/eiceThroughput.mjs';

export const title = 'Transports: EC2 Instance Connect Endpoint, SSM (vs direct TCP)';

export async function run(ctx) {
  const rows = [];
  rows.push(...(await eiceRows(ctx)));
  rows.push(...(await ssmRows(ctx)));
  return rows;
}
