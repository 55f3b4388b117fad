import * as z from 'zod';
import type { Metric, ParsedOutput, PresetDef } from '../types.js';
import { MARK, marks, wrapScript } from '../script.js';
import { shQuote } from '../../shell.js';
import { AppError } from '../../errors.js';

// cpufreq: governor, driver and frequencies per CPU. No cpufreq/ directory is the normal state
// on most EC2 types (the hypervisor manages frequency) and is reported as such, not as an error.
// "set-performance" switches every CPU to the performance governor (sudo, confirmed) and prints
// the original governors so "restore" can put them back.

const params = z.object({
  action: z
    .enum(['read', 'set-performance', 'restore'])
    .default('read')
    .describe('read: report only. set-performance: switch all CPUs to the performance governor (needs sudo). restore: set the governor given below.'),
  governor: z
    .string()
    .default('')
    .describe('For restore: the original governor recorded by set-performance (facts.original_governor).')
    .refine((g) => g === '' || /^[a-z][a-z0-9_-]{0,31}$/.test(g), 'a governor name like ondemand or schedutil'),
});
type Params = z.infer<typeof params>;

function body(p: Params): string {
  const read = `for d in /sys/devices/system/cpu/cpu[0-9]*/cpufreq; do
  [ -d "$d" ] || continue
  c=\${d%/cpufreq}; c=\${c##*/}
  r() { cat "$d/$1" 2>/dev/null | tr -s ' ' | sed 's/ $//'; }
  hw=; [ "$HAVE_ROOT" = 1 ] && hw=$($SUDO cat "$d/cpuinfo_cur_freq" 2>/dev/null)
  printf '${MARK}cpu %s|%s|%s|%s|%s|%s|%s|%s\\n' "$c" "$(r scaling_governor)" "$(r scaling_driver)" "$(r scaling_cur_freq)" "$(r scaling_min_freq)" "$(r scaling_max_freq)" "$(r scaling_available_governors)" "$hw"
done`;
  let action = '';
  if (p.action !== 'read') {
    const target = p.action === 'set-performance' ? 'performance' : p.governor;
    action = `if [ "$HAVE_ROOT" != 1 ]; then echo "changing the governor needs root or passwordless sudo" >&2; exit 13; fi
GOV=${shQuote(target)}
for d in /sys/devices/system/cpu/cpu[0-9]*/cpufreq; do
  [ -f "$d/scaling_governor" ] || continue
  c=\${d%/cpufreq}; c=\${c##*/}
  printf '${MARK}original %s %s\\n' "$c" "$(cat "$d/scaling_governor")"
  printf '%s\\n' "$GOV" | $SUDO tee "$d/scaling_governor" >/dev/null || { echo "could not set $GOV on $c" >&2; exit 1; }
done`;
  }
  return `phase read
if ! ls -d /sys/devices/system/cpu/cpu[0-9]*/cpufreq >/dev/null 2>&1; then
  printf '${MARK}cpufreq absent\\n'
  exit 0
fi
${action}
${read}
phase done`;
}

export function parseCpufreq(stdout: string): ParsedOutput {
  const notes = marks(stdout, 'note');
  if (marks(stdout, 'cpufreq').includes('absent')) {
    return {
      ok: true,
      metrics: [],
      facts: { cpufreq: 'absent', frequency: 'managed by the hypervisor' },
      notes: [...notes, 'No cpufreq interface: CPU frequency is managed by the hypervisor (normal on most EC2 instance types).'],
    };
  }
  const cpus = marks(stdout, 'cpu').map((l) => {
    const [cpu, governor, driver, cur, min, max, avail, hw] = l.split('|');
    const mhz = (s: string | undefined) => (s && /^\d+$/.test(s) ? Number(s) / 1000 : undefined);
    return { cpu: cpu ?? '?', governor: governor ?? '', driver: driver ?? '', cur: mhz(cur), min: mhz(min), max: mhz(max), avail: avail ?? '', hw: mhz(hw) };
  });
  if (cpus.length === 0) return { ok: false, metrics: [], facts: {}, notes, error: 'no cpufreq data in the output' };
  const facts: Record<string, string> = {};
  const uniq = (xs: string[]) => [...new Set(xs.filter(Boolean))].join(', ');
  facts.governor = uniq(cpus.map((c) => c.governor));
  facts.driver = uniq(cpus.map((c) => c.driver));
  facts.available_governors = uniq(cpus.map((c) => c.avail));
  const orig = marks(stdout, 'original');
  if (orig.length) facts.original_governor = uniq(orig.map((o) => o.split(' ')[1] ?? ''));
  const metrics: Metric[] = [];
  const curs = cpus.map((c) => c.cur).filter((x): x is number => x !== undefined);
  if (curs.length) {
    metrics.push({
      key: 'freq.cur_avg',
      label: 'Current frequency (avg)',
      value: Math.round((curs.reduce((a, b) => a + b, 0) / curs.length) * 10) / 10,
      unit: 'MHz',
      better: 'higher',
    });
    metrics.push({ key: 'freq.cur_min', label: 'Current frequency (min CPU)', value: Math.min(...curs), unit: 'MHz', better: 'higher' });
  }
  const maxes = cpus.map((c) => c.max).filter((x): x is number => x !== undefined);
  if (maxes.length) metrics.push({ key: 'freq.scaling_max', label: 'Scaling max frequency', value: Math.max(...maxes), unit: 'MHz', better: 'higher' });
  const mins = cpus.map((c) => c.min).filter((x): x is number => x !== undefined);
  if (mins.length) metrics.push({ key: 'freq.scaling_min', label: 'Scaling min frequency', value: Math.min(...mins), unit: 'MHz' });
  for (const c of cpus) {
    if (c.cur !== undefined) metrics.push({ key: `freq.${c.cpu}.cur`, label: `${c.cpu} scaling_cur_freq`, value: c.cur, unit: 'MHz', better: 'higher' });
    if (c.hw !== undefined) metrics.push({ key: `freq.${c.cpu}.hw`, label: `${c.cpu} cpuinfo_cur_freq`, value: c.hw, unit: 'MHz', better: 'higher' });
  }
  return { ok: true, metrics, facts, notes };
}

export const cpufreq: PresetDef<typeof params> = {
  id: 'cpufreq',
  title: 'CPU frequency',
  description: 'Governor, available governors, driver, current/min/max frequency per CPU. Can set the performance governor (sudo) and restore it.',
  params,
  confirmations: (p) =>
    p.action === 'read'
      ? []
      : [
          {
            kind: 'sudo',
            say: p.action === 'set-performance' ? { id: 'setPerformance' } : { id: 'setGovernor', values: { governor: p.governor ?? '' } },
          },
        ],
  script: (p, ctx) => {
    if (p.action === 'restore' && !p.governor)
      throw new AppError(
        'INVALID_INPUT',
        'cpufreq restore needs the governor to put back.',
        'Pass --param governor=NAME (the original_governor recorded by set-performance).',
      );
    return wrapScript(body(p), { runDir: ctx.runDir, title: `cpufreq ${p.action}` });
  },
  parse: (stdout) => parseCpufreq(stdout),
};
