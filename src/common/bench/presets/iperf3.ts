import * as z from 'zod';
import type { Metric, ParsedOutput, PresetDef } from '../types.js';
import { MARK, marks, stripMarks, wrapScript } from '../script.js';
import { shQuote } from '../../shell.js';
import { AppError } from '../../errors.js';
import { PeerAddressModeSchema } from '../peerAddress.js';

// iperf3 between two instances: a one-shot server (`iperf3 -s -1`) on the peer B, whose pid is
// recorded and which the runner always stops, and the client on A with -J. TCP: bits/s sent and
// received, retransmits, RTT. UDP (-u -b 0 -l 64): received packets/s computed from packets,
// lost packets and seconds. An "error" key is a failure even with exit code 0 (3.12/3.13).

const params = z.object({
  mode: z.enum(['tcp', 'udp']).default('tcp').describe('tcp: bandwidth (bits/s). udp: packets per second with small datagrams (-u -b 0 -l 64).'),
  duration: z.coerce.number().int().min(1).max(3600).default(10).describe('Seconds to transmit (-t).'),
  parallel: z.coerce.number().int().min(1).max(128).default(1).describe('Parallel client streams (-P).'),
  reverse: z.boolean().default(false).describe('Reverse mode: the server sends, the client receives (-R).'),
  port: z.coerce.number().int().min(1024).max(65535).default(5201).describe('Server port on the peer (-p); the security group must allow it.'),
  bandwidth: z
    .string()
    .default('0')
    .describe('UDP target bitrate (-b); 0 = unlimited.')
    .refine((b) => /^\d+(\.\d+)?[kKmMgG]?$/.test(b), 'a bitrate like 0, 100M or 1G'),
  length: z.coerce.number().int().min(16).max(65507).default(64).describe('UDP datagram size in bytes (-l).'),
  address: PeerAddressModeSchema.default('auto').describe(
    'How the client reaches the peer: auto = private IP when both are in the same VPC, else public IP; or always private / public.',
  ),
  serverBind: z
    .boolean()
    .default(false)
    .describe('Bind the server to the address the client uses (-B): for a peer with several addresses on one interface. Not for a public IP behind NAT.'),
});
type Params = z.infer<typeof params>;

export { PREVIEW_PEER_ADDRESS } from '../peerAddress.js';

const ADDRESS_RE = /^(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9a-fA-F:]{2,39}|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$/;

function iperf3ClientArgs(p: Params, address: string): string[] {
  if (!ADDRESS_RE.test(address)) throw new AppError('INVALID_INPUT', `The peer's address "${address}" is not an IP address or host name.`);
  const a = ['iperf3', '-c', address, '-p', String(p.port), '-J', '-t', String(p.duration), '-P', String(p.parallel)];
  if (p.reverse) a.push('-R');
  if (p.mode === 'udp') a.push('-u', '-b', p.bandwidth, '-l', String(p.length));
  return a;
}

function clientBody(p: Params, address: string): string {
  return `command -v iperf3 >/dev/null 2>&1 || { echo "iperf3 is not installed on this host" >&2; exit 127; }
printf '${MARK}version %s\\n' "$(iperf3 --version 2>/dev/null | head -n 1)"
phase run
${iperf3ClientArgs(p, address).map(shQuote).join(' ')}
rc=$?
phase done
exit $rc`;
}

function serverBody(p: Params, address: string | undefined): string {
  const hex = p.port.toString(16).toUpperCase().padStart(4, '0');
  if (address !== undefined && !ADDRESS_RE.test(address)) throw new AppError('INVALID_INPUT', `"${address}" is not an IP address or host name.`);
  const bind = p.serverBind && address ? ` -B ${shQuote(address)}` : '';
  return `command -v iperf3 >/dev/null 2>&1 || { echo "iperf3 is not installed on the peer" >&2; exit 127; }
iperf3 -s -1 -p ${p.port}${bind} > "$SCRATCH/server.txt" 2>&1 &
SRV=$!
printf '${MARK}serverpid %s\\n' "$SRV"
i=0
while [ $i -lt 200 ]; do
  if grep -q ':${hex} [0-9A-F]*:0000 0A' /proc/net/tcp /proc/net/tcp6 2>/dev/null; then printf '${MARK}ready\\n'; break; fi
  kill -0 "$SRV" 2>/dev/null || break
  sleep 0.05; i=$((i+1))
done
wait "$SRV"; rc=$?
SRV=
cat "$SCRATCH/server.txt"
exit $rc`;
}

// Stopped before its one test ran (the client never reached it): stop the server and still show
// what it printed, so a failed run keeps the server's side of the story.
const PEER_CLEANUP = 'if [ -n "${SRV:-}" ]; then kill "$SRV" 2>/dev/null; wait "$SRV" 2>/dev/null; cat "$SCRATCH/server.txt" 2>/dev/null; fi';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The JSON document in the output (iperf3 -J prints exactly one object). */
function extractJson(text: string): Obj | undefined {
  const t = stripMarks(text);
  const start = t.indexOf('{');
  const end = t.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  try {
    return obj(JSON.parse(t.slice(start, end + 1)));
  } catch {
    return undefined;
  }
}

export function parseIperf3(stdout: string, stderr = ''): ParsedOutput {
  const notes = marks(stdout, 'note');
  const doc = extractJson(stdout);
  if (!doc) {
    const why = stderr.trim().split('\n').pop() || 'no iperf3 JSON in the output';
    return { ok: false, metrics: [], facts: {}, notes, error: why };
  }
  const start = obj(doc.start);
  const version = typeof start?.version === 'string' ? start.version : undefined;
  const base = { facts: {} as Record<string, string>, notes, ...(version ? { toolVersion: version } : {}) };
  if (typeof doc.error === 'string') return { ...base, ok: false, metrics: [], error: `iperf3: ${doc.error}` };
  const ts = obj(start?.test_start);
  const protocol = typeof ts?.protocol === 'string' ? ts.protocol : 'TCP';
  base.facts.protocol = protocol;
  if (num(ts?.num_streams)) base.facts.streams = String(ts!.num_streams);
  if (num(ts?.reverse)) base.facts.reverse = 'yes';
  const end = obj(doc.end);
  if (!end) return { ...base, ok: false, metrics: [], error: 'iperf3 output has no "end" summary (test interrupted?)' };
  const metrics: Metric[] = [];

  if (protocol === 'UDP') {
    // iperf3 >= 3.11 has sum_sent/sum_received; older versions only "sum" (the receiver's view).
    const rcv = obj(end.sum_received) ?? obj(end.sum);
    const snt = obj(end.sum_sent) ?? obj(end.sum);
    const packets = num(rcv?.packets);
    const lost = num(rcv?.lost_packets);
    const seconds = num(rcv?.seconds);
    if (packets === undefined || lost === undefined || !seconds)
      return { ...base, ok: false, metrics: [], error: 'iperf3 UDP summary lacks packets/lost_packets/seconds' };
    metrics.push({ key: 'udp.rx_pps', label: 'UDP received packets/s', value: (packets - lost) / seconds, unit: 'packets/s', better: 'higher' });
    const sp = num(snt?.packets);
    const ss = num(snt?.seconds);
    if (sp !== undefined && ss) metrics.push({ key: 'udp.tx_pps', label: 'UDP sent packets/s', value: sp / ss, unit: 'packets/s', better: 'higher' });
    const lp = num(rcv?.lost_percent);
    metrics.push({ key: 'udp.loss', label: 'UDP loss', value: lp ?? (packets ? (lost / packets) * 100 : 0), unit: '%', better: 'lower' });
    const jit = num(rcv?.jitter_ms);
    if (jit !== undefined) metrics.push({ key: 'udp.jitter', label: 'UDP jitter', value: jit, unit: 'ms', better: 'lower' });
    const bps = num(rcv?.bits_per_second);
    if (bps !== undefined) metrics.push({ key: 'udp.rx_bps', label: 'UDP received bitrate', value: bps, unit: 'bit/s', better: 'higher' });
    metrics.push({ key: 'udp.packets', label: 'UDP packets', value: packets, unit: 'packets' });
    metrics.push({ key: 'udp.lost', label: 'UDP lost packets', value: lost, unit: 'packets', better: 'lower' });
    return { ...base, ok: true, metrics };
  }

  const sent = obj(end.sum_sent);
  const recv = obj(end.sum_received);
  const sbps = num(sent?.bits_per_second);
  const rbps = num(recv?.bits_per_second);
  if (sbps === undefined && rbps === undefined) return { ...base, ok: false, metrics: [], error: 'iperf3 TCP summary lacks sum_sent/sum_received' };
  if (sbps !== undefined) metrics.push({ key: 'tcp.sent_bps', label: 'TCP sent', value: sbps, unit: 'bit/s', better: 'higher' });
  if (rbps !== undefined) metrics.push({ key: 'tcp.received_bps', label: 'TCP received', value: rbps, unit: 'bit/s', better: 'higher' });
  const retr = num(sent?.retransmits);
  if (retr !== undefined) metrics.push({ key: 'tcp.retransmits', label: 'TCP retransmits', value: retr, unit: 'count', better: 'lower' });
  const rtts: number[] = [];
  for (const s of Array.isArray(end.streams) ? end.streams : []) {
    const r = num(obj(obj(s)?.sender)?.mean_rtt);
    if (r !== undefined) rtts.push(r);
  }
  if (rtts.length)
    metrics.push({ key: 'tcp.rtt', label: 'TCP mean RTT', value: rtts.reduce((a, b) => a + b, 0) / rtts.length / 1000, unit: 'ms', better: 'lower' });
  return { ...base, ok: true, metrics };
}

export const iperf3: PresetDef<typeof params> = {
  id: 'iperf3',
  title: 'iperf3 pair',
  description: 'TCP bandwidth or UDP packets per second between two instances: iperf3 server on the peer (always stopped afterwards), client here.',
  params,
  pair: true,
  confirmations: () => [],
  script: (p, ctx) => {
    if (!ctx.peerAddress) throw new AppError('INVALID_INPUT', 'iperf3 needs a peer instance (it runs the iperf3 server).');
    return wrapScript(clientBody(p, ctx.peerAddress), { runDir: ctx.runDir, title: `iperf3 ${p.mode} client` });
  },
  peerScript: (p, ctx) => wrapScript(serverBody(p, ctx.peerAddress), { runDir: ctx.runDir, title: `iperf3 server port ${p.port}`, cleanup: PEER_CLEANUP }),
  peerReady: /^@@tagssh:ready$/m,
  peerAddressing: (p) => ({ mode: p.address, param: 'address', port: p.port }),
  estimateSeconds: (p) => p.duration + 2,
  parse: (stdout, stderr) => parseIperf3(stdout, stderr),
};
