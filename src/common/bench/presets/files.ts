import * as z from 'zod';
import type { Metric, ParsedOutput, PresetDef } from '../types.js';
import { dirParam, dirScratch, dirScratchCleanup, fields, marks, wrapScript } from '../script.js';
import { shQuote } from '../../shell.js';

// Metadata-heavy file-system tests, the numbers that tell EFS from s3fs, goofys or mount-s3:
//  - smallfiles: `touch` N files in a fresh directory (timed inside one remote shell), then
//    remove them; ops/s and ms/op for create and delete.
//  - listing: `ls -laR` of a directory, cold (page cache dropped when root) then warm, with the
//    entry count. Read-only.

const smallParams = z.object({
  dir: dirParam('Directory (mount point) to test. Files go in a fresh sub-directory and are removed afterwards.'),
  count: z.coerce.number().int().min(1).max(1_000_000).default(1000).describe('Number of files to create.'),
  method: z.enum(['loop', 'xargs']).default('loop').describe('loop: one `touch` per file (as done by hand). xargs: batched `touch` (file-system cost only).'),
});

function smallBody(p: z.infer<typeof smallParams>): string {
  const create =
    p.method === 'loop'
      ? `i=0; while [ "$i" -lt "$N" ]; do touch "f$i" || exit 1; i=$((i+1)); done`
      : `i=0; while [ "$i" -lt "$N" ]; do echo "f$i"; i=$((i+1)); done | xargs touch || exit 1`;
  return `N=${p.count}
mkdir files && cd files || exit 1
phase create
t0=$(now_ns)
${create}
t1=$(now_ns)
printf '@@tagssh:files op=create n=%s ns=%s\\n' "$N" "$((t1 - t0))"
n=$(ls -f . | grep -vc '^\\.\\.\\?$')
printf '@@tagssh:files op=count n=%s\\n' "$n"
cd .. || exit 1
phase delete
t0=$(now_ns)
rm -rf files
t1=$(now_ns)
printf '@@tagssh:files op=delete n=%s ns=%s\\n' "$N" "$((t1 - t0))"
phase done`;
}

function opMetrics(prefix: string, label: string, n: number, ns: number): Metric[] {
  const secs = ns / 1e9;
  return [
    { key: `${prefix}.ops`, label: `${label} ops/s`, value: secs > 0 ? n / secs : 0, unit: 'ops/s', better: 'higher' },
    { key: `${prefix}.ms_per_op`, label: `${label} ms/op`, value: n > 0 ? ns / 1e6 / n : 0, unit: 'ms/op', better: 'lower' },
    { key: `${prefix}.seconds`, label: `${label} total`, value: secs, unit: 's', better: 'lower' },
  ];
}

export function parseSmallFiles(stdout: string, stderr = ''): ParsedOutput {
  const notes = marks(stdout, 'note');
  const metrics: Metric[] = [];
  const facts: Record<string, string> = {};
  for (const line of marks(stdout, 'files')) {
    const f = fields(line);
    const n = Number(f.n);
    const ns = Number(f.ns);
    if (f.op === 'count') facts.files_created = String(n);
    else if (f.op === 'create' && Number.isFinite(ns)) metrics.push(...opMetrics('create', 'create (touch)', n, ns));
    else if (f.op === 'delete' && Number.isFinite(ns)) metrics.push(...opMetrics('delete', 'delete (rm -rf)', n, ns));
  }
  if (!metrics.length) return { ok: false, metrics, facts, notes, error: stderr.trim().split('\n').pop() || 'no timings in the output' };
  return { ok: true, metrics, facts, notes };
}

export const smallfiles: PresetDef<typeof smallParams> = {
  id: 'smallfiles',
  title: 'Small files',
  description: '`touch` N files in a fresh directory and remove them: create/delete ops/s and ms/op.',
  params: smallParams,
  confirmations: (p) => [{ kind: 'write', say: { id: 'createFiles', values: { count: p.count, dir: p.dir } } }],
  script: (p, ctx) =>
    wrapScript(smallBody(p), {
      runDir: ctx.runDir,
      title: 'small files',
      vars: `DIR=${shQuote(p.dir)}`,
      scratch: dirScratch(ctx.runId),
      precheck: `[ -d "$DIR" ] || { echo "directory $DIR does not exist" >&2; exit 2; }`,
    }),
  cleanup: (p, ctx) => dirScratchCleanup(p.dir, ctx.runId),
  estimateSeconds: (p) => 5 + p.count / 500,
  mountDirs: (p) => ({ dir: p.dir }),
  parse: (stdout, stderr) => parseSmallFiles(stdout, stderr),
};

const listParams = z.object({
  dir: dirParam('Directory to list recursively (ls -laR). Read-only.', '/usr/share/doc'),
});

function listBody(): string {
  const one = (kind: string) => `t0=$(now_ns)
entries=$(ls -laR -- "$DIR" 2> "$SCRATCH/ls.err" | awk '/^total [0-9]/ {next} /:$/ {next} NF < 8 {next} $NF == "." || $NF == ".." {next} {n++} END {print n+0}')
t1=$(now_ns)
printf '@@tagssh:listing pass=${kind} entries=%s ns=%s errors=%s\\n' "$entries" "$((t1 - t0))" "$(wc -l < "$SCRATCH/ls.err" | tr -d ' ')"`;
  return `phase cold
if [ "$HAVE_ROOT" = 1 ]; then
  sync; printf '3\\n' | $SUDO tee /proc/sys/vm/drop_caches >/dev/null 2>&1 && printf '@@tagssh:cache dropped\\n' || note "could not drop caches: cold pass may be warm"
else
  note "no root or passwordless sudo: caches not dropped, the cold pass is the first pass"
fi
${one('cold')}
phase warm
${one('warm')}
phase done`;
}

export function parseListing(stdout: string, stderr = ''): ParsedOutput {
  const notes = marks(stdout, 'note');
  const metrics: Metric[] = [];
  const facts: Record<string, string> = {};
  if (marks(stdout, 'cache').includes('dropped')) facts.cold = 'caches dropped first';
  for (const line of marks(stdout, 'listing')) {
    const f = fields(line);
    const n = Number(f.entries);
    const ns = Number(f.ns);
    if (!Number.isFinite(ns) || !f.pass) continue;
    if (f.pass === 'cold') metrics.push({ key: 'entries', label: 'entries listed', value: n, unit: 'entries' });
    metrics.push({ key: `${f.pass}.seconds`, label: `ls -laR ${f.pass}`, value: ns / 1e9, unit: 's', better: 'lower' });
    metrics.push({ key: `${f.pass}.ops`, label: `${f.pass} entries/s`, value: ns > 0 ? n / (ns / 1e9) : 0, unit: 'ops/s', better: 'higher' });
    metrics.push({ key: `${f.pass}.ms_per_op`, label: `${f.pass} ms/entry`, value: n > 0 ? ns / 1e6 / n : 0, unit: 'ms/op', better: 'lower' });
    if (Number(f.errors) > 0) notes.push(`${f.pass} pass: ${f.errors} ls error line(s) (unreadable entries)`);
  }
  if (!metrics.length) return { ok: false, metrics, facts, notes, error: stderr.trim().split('\n').pop() || 'no timings in the output' };
  return { ok: true, metrics, facts, notes };
}

export const listing: PresetDef<typeof listParams> = {
  id: 'listing',
  title: 'Listing',
  description: '`ls -laR` of a directory, cold and warm, with the entry count: entries/s and ms per entry.',
  params: listParams,
  confirmations: () => [],
  script: (p, ctx) =>
    wrapScript(listBody(), {
      runDir: ctx.runDir,
      title: 'listing',
      vars: `DIR=${shQuote(p.dir)}`,
      precheck: `[ -d "$DIR" ] || { echo "directory $DIR does not exist" >&2; exit 2; }`,
    }),
  mountDirs: (p) => ({ dir: p.dir }),
  parse: (stdout, stderr) => parseListing(stdout, stderr),
};
