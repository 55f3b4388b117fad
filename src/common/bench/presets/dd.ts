import * as z from 'zod';
import type { Metric, ParsedOutput, PresetDef } from '../types.js';
import { dirParam, dirScratch, dirScratchCleanup, marks, section, spaceCheck, stripMarks, wrapScript } from '../script.js';
import { shQuote } from '../../shell.js';

// dd: sequential write with conv=fdatasync, then read back (page cache dropped when root,
// otherwise said so). dd prints its summary on stderr; the script brackets each step's stderr
// with markers. A full disk (ENOSPC) is reported as such and the partial file is removed.

const params = z.object({
  dir: dirParam('Directory to test. The test file goes in a fresh sub-directory and is removed afterwards.'),
  bs: z.enum(['4k', '64k', '1M', '4M', '16M']).default('1M').describe('Block size (bs=).'),
  count: z.coerce.number().int().min(1).max(1_000_000).default(1024).describe('Number of blocks (count=); bs=1M count=1024 writes 1 GiB.'),
  direct: z.boolean().default(false).describe('Also bypass the page cache (oflag=direct / iflag=direct).'),
});
type Params = z.infer<typeof params>;

const BS_BYTES: Record<Params['bs'], number> = { '4k': 4096, '64k': 65536, '1M': 1048576, '4M': 4194304, '16M': 16777216 };

function body(p: Params): string {
  const w = ['dd', 'if=/dev/zero', 'of=ddtest', `bs=${p.bs}`, `count=${p.count}`, 'conv=fdatasync', ...(p.direct ? ['oflag=direct'] : [])];
  const r = ['dd', 'if=ddtest', 'of=/dev/null', `bs=${p.bs}`, ...(p.direct ? ['iflag=direct'] : [])];
  return `printf '@@tagssh:version %s\\n' "$(dd --version 2>/dev/null | head -n 1)"
phase write
${w.map(shQuote).join(' ')} 2> dd-write.err
rc=$?
printf '@@tagssh:begin write\\n'; cat dd-write.err; printf '@@tagssh:end write rc=%s\\n' "$rc"
if [ "$rc" != 0 ]; then
  rm -f ddtest
  if grep -q 'No space left' dd-write.err; then note "disk full (ENOSPC): partial file removed"; exit 28; fi
  exit "$rc"
fi
if [ "$HAVE_ROOT" = 1 ]; then
  sync; printf '3\\n' | $SUDO tee /proc/sys/vm/drop_caches >/dev/null 2>&1 && printf '@@tagssh:cache dropped\\n' || note "could not drop the page cache: read may come from memory"
else
  note "no root or passwordless sudo: page cache not dropped, the read may come from memory"
fi
phase read
${r.map(shQuote).join(' ')} 2> dd-read.err
rc=$?
printf '@@tagssh:begin read\\n'; cat dd-read.err; printf '@@tagssh:end read rc=%s\\n' "$rc"
rm -f ddtest
phase done
exit $rc`;
}

interface DdSummary {
  bytes: number;
  seconds: number;
  /** bytes per second (computed from bytes/seconds; dd's rounded figure when seconds is 0) */
  rate: number;
}

const UNIT: Record<string, number> = {
  B: 1,
  kB: 1e3,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  PB: 1e15,
  EB: 1e18,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
};

/**
 * Every coreutils summary form:
 *  9.x/8.24+: `104857600 bytes (105 MB, 100 MiB) copied, 0.13995 s, 749 MB/s`
 *  older:     `104857600 bytes (105 MB) copied, 0.13995 s, 749 MB/s`
 *  small:     `512 bytes copied, 0.000123 s, 4.2 MB/s`, `1 byte copied, …`
 *  9.x zero:  `0 bytes copied, 0.00012 s, 0 kB/s`; time 0: `…, 0 s, Infinity B/s` (rare)
 */
export function parseDdSummaries(text: string): DdSummary[] {
  const out: DdSummary[] = [];
  const re = /^(\d+) bytes?(?: \([^)]*\))? copied, ([\d.]+(?:e[-+]?\d+)?) s(?:, ([\d.]+|Infinity) ?([kKMGTPE]?i?B)\/s)?/gm;
  for (const m of text.matchAll(re)) {
    const bytes = Number(m[1]);
    const seconds = Number(m[2]);
    const printed = m[3] && m[3] !== 'Infinity' ? Number(m[3]) * (UNIT[m[4] ?? 'B'] ?? 1) : NaN;
    out.push({ bytes, seconds, rate: seconds > 0 ? bytes / seconds : printed });
  }
  return out;
}

export function parseDd(stdout: string, stderr = ''): ParsedOutput {
  const notes = marks(stdout, 'note');
  const facts: Record<string, string> = {};
  const ver = marks(stdout, 'version')[0];
  const write = section(stdout, 'write');
  const read = section(stdout, 'read');
  // Output of our script (sections), or dd's raw stderr imported by hand (write then read).
  const all = write !== undefined ? undefined : parseDdSummaries(stripMarks(stdout) + '\n' + stderr);
  const w = write !== undefined ? parseDdSummaries(write)[0] : all?.[0];
  const r = read !== undefined ? parseDdSummaries(read)[0] : all?.[1];
  const text = `${write ?? ''}\n${read ?? ''}\n${stdout}\n${stderr}`;
  const enospc = /No space left on device/.test(text);
  if (marks(stdout, 'cache').includes('dropped')) facts.page_cache = 'dropped before read';
  const metrics: Metric[] = [];
  if (w) {
    metrics.push({ key: 'write.rate', label: 'write (conv=fdatasync)', value: w.rate / 1e6, unit: 'MB/s', better: 'higher' });
    metrics.push({ key: 'write.seconds', label: 'write time', value: w.seconds, unit: 's', better: 'lower' });
    metrics.push({ key: 'write.bytes', label: 'bytes written', value: w.bytes, unit: 'B' });
  }
  if (r && !enospc) {
    metrics.push({ key: 'read.rate', label: 'read back', value: r.rate / 1e6, unit: 'MB/s', better: 'higher' });
    metrics.push({ key: 'read.seconds', label: 'read time', value: r.seconds, unit: 's', better: 'lower' });
  }
  const base = { facts, notes, ...(ver ? { toolVersion: ver } : {}) };
  if (enospc) {
    const wrote = w ? `${(w.bytes / 1e6).toFixed(1)} MB written before the disk filled` : 'the disk filled up';
    return { ...base, ok: false, metrics, error: `No space left on device: ${wrote}; the partial file was removed.` };
  }
  if (!w) return { ...base, ok: false, metrics, error: stderr.trim().split('\n').pop() || 'no dd summary in the output' };
  return { ...base, ok: true, metrics };
}

export const dd: PresetDef<typeof params> = {
  id: 'dd',
  title: 'dd',
  description: 'Sequential write (conv=fdatasync) and read back with dd; page cache dropped when root.',
  params,
  confirmations: (p) => [{ kind: 'write', say: { id: 'ddWrite', values: { mib: ((BS_BYTES[p.bs] * p.count) / 1048576).toFixed(0), dir: p.dir } } }],
  script: (p, ctx) =>
    wrapScript(body(p), {
      runDir: ctx.runDir,
      title: 'dd',
      vars: `DIR=${shQuote(p.dir)}`,
      scratch: dirScratch(ctx.runId),
      precheck: spaceCheck('"$DIR"', (BS_BYTES[p.bs] * p.count) / 1024 + 1024),
    }),
  cleanup: (p, ctx) => dirScratchCleanup(p.dir, ctx.runId),
  estimateSeconds: (p) => 10 + p.count / 100,
  mountDirs: (p) => ({ dir: p.dir }),
  parse: (stdout, stderr) => parseDd(stdout, stderr),
};
