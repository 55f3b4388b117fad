import * as z from 'zod';
import type { Metric, ParsedOutput, PresetDef } from '../types.js';
import { dirParam, dirScratch, dirScratchCleanup, marks, sizeParam, sizeToBytes, spaceCheck, stripMarks, wrapScript } from '../script.js';
import { shQuote } from '../../shell.js';

// fio with JSON output in a directory the user picks. Test files live in DIR/tagssh-<run> and are
// removed afterwards; raw devices are refused (by the schema and again by the script); free
// space is checked with df first. Parses fio 3.x (clat_ns, ns) and fio 2.x (clat, µs) JSON, and
// terse v3 (--minimal) for runs imported by hand.

const params = z.object({
  dir: dirParam('Directory to test (a mount point such as /mnt/efs). Test files go in a fresh sub-directory and are removed afterwards.'),
  template: z.enum(['randread', 'randwrite', 'randrw', 'read', 'write']).default('randread').describe('I/O pattern (--rw): random/sequential read/write.'),
  bs: sizeParam('Block size (--bs), e.g. 4k for IOPS, 1M for throughput.', '4k'),
  size: sizeParam('File size per job (--size).', '256M'),
  numjobs: z.coerce.number().int().min(1).max(64).default(4).describe('Parallel jobs (--numjobs), reported together (--group_reporting).'),
  iodepth: z.coerce.number().int().min(1).max(1024).default(1).describe('I/O depth (--iodepth); >1 needs an async engine such as libaio.'),
  ioengine: z.enum(['psync', 'libaio', 'io_uring', 'sync', 'posixaio']).default('psync').describe('I/O engine (--ioengine).'),
  runtime: z.coerce.number().int().min(1).max(3600).default(30).describe('Seconds to run (--runtime with --time_based).'),
  direct: z.boolean().default(true).describe('Bypass the page cache (--direct=1). Some FUSE file systems refuse O_DIRECT.'),
});
type Params = z.infer<typeof params>;

function fioArgs(p: Params): string[] {
  return [
    'fio',
    '--name=tagssh',
    `--rw=${p.template}`,
    `--bs=${p.bs}`,
    `--size=${p.size}`,
    `--numjobs=${p.numjobs}`,
    `--iodepth=${p.iodepth}`,
    `--ioengine=${p.ioengine}`,
    `--direct=${p.direct ? 1 : 0}`,
    `--runtime=${p.runtime}`,
    '--time_based',
    '--group_reporting',
    '--output-format=json',
  ];
}

function body(p: Params): string {
  return `command -v fio >/dev/null 2>&1 || { echo "fio is not installed on this host" >&2; exit 127; }
printf '@@tagssh:version %s\\n' "$(fio --version 2>/dev/null)"
phase run
${fioArgs(p).map(shQuote).join(' ')} --directory="$SCRATCH"
rc=$?
phase done
exit $rc`;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function pct(percentiles: Obj | undefined, p: string): number | undefined {
  if (!percentiles) return undefined;
  for (const [k, v] of Object.entries(percentiles)) if (Number(k) === Number(p)) return num(v);
  return undefined;
}

function sideMetrics(side: 'read' | 'write', d: Obj): Metric[] {
  const iops = num(d.iops) ?? 0;
  const ios = num(d.total_ios) ?? num(d.io_bytes) ?? 0;
  if (iops === 0 && ios === 0) return [];
  const out: Metric[] = [];
  out.push({ key: `${side}.iops`, label: `${side} IOPS`, value: iops, unit: 'IOPS', better: 'higher' });
  const bw = num(d.bw);
  if (bw !== undefined) out.push({ key: `${side}.bw`, label: `${side} bandwidth`, value: bw / 1024, unit: 'MiB/s', better: 'higher' });
  // fio 3.x: clat_ns in nanoseconds; fio 2.x: clat in microseconds.
  const ns = obj(d.clat_ns);
  const us = obj(d.clat);
  const clat = ns ?? us;
  const toUs = ns ? 1 / 1000 : 1;
  if (clat) {
    const mean = num(clat.mean);
    if (mean !== undefined) out.push({ key: `${side}.clat_mean`, label: `${side} clat mean`, value: mean * toUs, unit: 'µs', better: 'lower' });
    const pcts = obj(clat.percentile);
    for (const [p, label] of [
      ['50', 'p50'],
      ['99', 'p99'],
      ['99.9', 'p99.9'],
    ] as const) {
      const v = pct(pcts, p);
      if (v !== undefined) out.push({ key: `${side}.clat_${label}`, label: `${side} clat ${label}`, value: v * toUs, unit: 'µs', better: 'lower' });
    }
  }
  return out;
}

/** fio --minimal (terse v3): 5 header fields, then 41 per direction (read, write). */
function parseTerse(line: string): ParsedOutput | undefined {
  const f = line.trim().split(';');
  if (f[0] !== '3' || f.length < 5 + 41 * 2) return undefined;
  const metrics: Metric[] = [];
  for (const [side, at] of [
    ['read', 5],
    ['write', 46],
  ] as const) {
    const iops = Number(f[at + 2]);
    if (!iops) continue;
    metrics.push({ key: `${side}.iops`, label: `${side} IOPS`, value: iops, unit: 'IOPS', better: 'higher' });
    metrics.push({ key: `${side}.bw`, label: `${side} bandwidth`, value: Number(f[at + 1]) / 1024, unit: 'MiB/s', better: 'higher' });
    const mean = Number(f[at + 10]);
    if (mean) metrics.push({ key: `${side}.clat_mean`, label: `${side} clat mean`, value: mean, unit: 'µs', better: 'lower' });
    for (const cell of f.slice(at + 12, at + 32)) {
      const m = /^([\d.]+)%=(\d+)$/.exec(cell);
      if (!m || Number(m[2]) === 0) continue;
      const label = { 50: 'p50', 99: 'p99', 99.9: 'p99.9' }[Number(m[1])];
      if (label) metrics.push({ key: `${side}.clat_${label}`, label: `${side} clat ${label}`, value: Number(m[2]), unit: 'µs', better: 'lower' });
    }
  }
  const err = Number(f[4]);
  return {
    ok: err === 0 && metrics.length > 0,
    metrics,
    facts: { job: f[2] ?? '', format: 'terse v3' },
    notes: [],
    toolVersion: f[1] ?? '',
    ...(err ? { error: `fio job error ${err}` } : {}),
  };
}

export function parseFio(stdout: string, stderr = ''): ParsedOutput {
  const notes = marks(stdout, 'note');
  const text = stripMarks(stdout);
  const start = text.search(/^\{/m);
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) {
    const terse = text.split('\n').find((l) => l.startsWith('3;fio-'));
    if (terse) return parseTerse(terse) ?? { ok: false, metrics: [], facts: {}, notes, error: 'unreadable fio terse line' };
    const why = stderr.trim().split('\n').filter(Boolean).pop() ?? 'no fio JSON in the output';
    return { ok: false, metrics: [], facts: {}, notes, error: why };
  }
  let doc: Obj | undefined;
  try {
    doc = obj(JSON.parse(text.slice(start, end + 1)));
  } catch {
    return { ok: false, metrics: [], facts: {}, notes, error: 'fio JSON is truncated or invalid' };
  }
  const version = typeof doc?.['fio version'] === 'string' ? (doc['fio version'] as string) : undefined;
  const jobs = Array.isArray(doc?.jobs) ? (doc.jobs as unknown[]) : [];
  const job = obj(jobs[0]);
  const base = { facts: {} as Record<string, string>, notes, ...(version ? { toolVersion: version } : {}) };
  if (!job) return { ...base, ok: false, metrics: [], error: 'fio JSON has no jobs' };
  const opts = obj(job['job options']);
  for (const k of ['rw', 'bs', 'numjobs', 'iodepth', 'ioengine', 'direct', 'size']) {
    const v = opts?.[k] ?? obj(doc?.['global options'])?.[k];
    if (typeof v === 'string') base.facts[k] = v;
  }
  if (jobs.length > 1) base.notes.push(`${jobs.length} job entries; the first is reported (use --group_reporting).`);
  const err = num(job.error);
  const metrics = [...sideMetrics('read', obj(job.read) ?? {}), ...sideMetrics('write', obj(job.write) ?? {})];
  if (err) return { ...base, ok: false, metrics, error: `fio job error ${err}` };
  if (metrics.length === 0) return { ...base, ok: false, metrics, error: 'fio did no I/O' };
  return { ...base, ok: true, metrics };
}

export const fio: PresetDef<typeof params> = {
  id: 'fio',
  title: 'fio',
  description: 'Random/sequential read/write with fio (JSON): IOPS, bandwidth, completion latency p50/p99/p99.9.',
  params,
  confirmations: (p) => [{ kind: 'write', say: { id: 'fioWrite', values: { jobs: p.numjobs, size: p.size, dir: p.dir } } }],
  script: (p, ctx) =>
    wrapScript(body(p), {
      runDir: ctx.runDir,
      title: `fio ${p.template}`,
      vars: `DIR=${shQuote(p.dir)}`,
      scratch: dirScratch(ctx.runId),
      precheck: spaceCheck('"$DIR"', ((sizeToBytes(p.size) * p.numjobs) / 1024) * 1.05 + 1024),
    }),
  cleanup: (p, ctx) => dirScratchCleanup(p.dir, ctx.runId),
  estimateSeconds: (p) => p.runtime + 10,
  mountDirs: (p) => ({ dir: p.dir }),
  parse: (stdout, stderr) => parseFio(stdout, stderr),
};
