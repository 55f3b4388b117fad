import { mkdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { AppError } from '../../../../common/errors.js';
import { historyByName, type NameHistory } from '../../../../common/bench/history.js';
import { formatNumber, formatRelative, formatResultList, type ExportFormat } from '../../../../common/bench/format.js';
import { toPkbJsonLines } from '../../../../common/bench/pkb.js';
import { buildReport } from '../../../../common/bench/report.js';
import { escapeControls } from '../../../../common/safeText.js';
import { printJson, printable, table } from '../../output.js';
import { runsFor, type ResultsStore } from '../../../bench/store.js';
import { docLangOf } from '../../options.js';
import type { ExportFlags, HistoryFlags, ReportFlags } from './flags.js';

// `tagssh results history NAME`, `results export [IDS…] --format pkb|csv|md|json` and
// `results report IDS --lang ja|en --out DIR`: saved results by Name over time, as
// PerfKitBenchmarker samples, and as a report ready to post.

async function store(): Promise<ResultsStore> {
  return (await import('../../../bench/store.js')).resultsStore();
}

function historyText(h: NameHistory): string {
  const rows = h.points.map((p, i) => [
    p.startedAt.replace('T', ' ').replace(/\..*/, ''),
    `${p.instanceId ?? '-'}${p.rebuilt ? ' (rebuilt)' : ''}`,
    p.type ?? '-',
    String(p.stats.n),
    formatNumber(p.stats.mean),
    p.stats.ci95 ? `± ${formatNumber((p.stats.ci95[1] - p.stats.ci95[0]) / 2)}` : '',
    i === h.baseline ? 'baseline' : '',
    p.id,
  ]);
  const head = `${printable(h.name)} — ${h.preset} ${h.metric.label} (${h.metric.unit}${h.metric.better ? `, ${h.metric.better} is better` : ''})\n`;
  let verdict = '';
  if (h.latest) {
    const rel = h.latest.relative !== undefined ? formatRelative(h.latest.relative) : 'n/a';
    const p = h.latest.test ? `, Welch's t-test p = ${h.latest.test.p.toPrecision(3)}` : '';
    verdict = {
      regression: `REGRESSION: the latest is ${rel} against the baseline, significantly worse${p}.`,
      improvement: `Improved: the latest is ${rel} against the baseline, significantly better${p}.`,
      noise: `No significant change: the latest is ${rel} against the baseline, within noise${p}.`,
      untestable: `The latest is ${rel} against the baseline; with a single run on a side, cannot tell whether that is more than noise (run with --repeat or --until-stable).`,
      same: `The latest is ${rel} against the baseline${p}.`,
    }[h.latest.verdict];
  }
  return head + table(['started', 'instance', 'type', 'runs', 'mean', '95% CI', '', 'id'], rows) + (verdict ? `${verdict}\n` : '');
}

export async function historyCommand(name: string, flags: HistoryFlags): Promise<number> {
  if (flags.format !== undefined && !['json', 'table'].includes(flags.format))
    throw new AppError('INVALID_INPUT', `Unknown --format "${flags.format}" for results history.`, 'Use json, or leave --format out for a table.');
  const list = (await store()).list();
  let h: NameHistory;
  try {
    h = historyByName(list, name, {
      ...(flags.preset ? { preset: flags.preset } : {}),
      ...(flags.metric ? { metric: flags.metric } : {}),
      ...(flags.baseline ? { baseline: flags.baseline } : {}),
    });
  } catch (e) {
    const err = e as AppError;
    if (err.code === 'INVALID_INPUT' && /several presets/.test(err.message)) throw new AppError(err.code, err.message, 'Pick one with --preset.');
    if (err.code === 'NOT_FOUND' && /no metric/.test(err.message)) throw new AppError(err.code, err.message, `Pick one with --metric (${err.hint ?? ''}).`);
    if (err.code === 'NOT_FOUND' && /baseline/.test(err.message)) throw new AppError(err.code, err.message, 'Give --baseline an id from the history table.');
    if (err.code === 'NOT_FOUND') throw new AppError(err.code, err.message, 'List saved results with `tagssh results`.');
    throw e;
  }
  if (flags.format === 'json') printJson(h);
  else process.stdout.write(historyText(h).split('\n').map(escapeControls).join('\n'));
  return h.latest?.verdict === 'regression' ? 1 : 0;
}

export async function exportCommand(ids: string[], flags: ExportFlags): Promise<number> {
  const fmt = flags.format ?? 'pkb';
  if (!['pkb', 'csv', 'md', 'json'].includes(fmt)) throw new AppError('INVALID_INPUT', `Unknown --format "${fmt}".`, 'Use pkb, csv, md or json.');
  const s = await store();
  let results = ids.length ? runsFor(s, ids) : s.list();
  if (flags.preset) results = results.filter((r) => r.preset === flags.preset);
  if (!results.length) throw new AppError('NOT_FOUND', 'No results to export.', 'Run a benchmark first, or check the ids and --preset.');
  const text =
    fmt === 'pkb' ? toPkbJsonLines(results, flags.owner ?? userInfo().username) : formatResultList(results, fmt as ExportFormat, { bom: flags.bom !== false });
  if (flags.out) {
    const path = resolve(flags.out);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    process.stderr.write(`Wrote ${results.length} result(s) to ${escapeControls(path)}.\n`);
  } else process.stdout.write(text);
  return 0;
}

export async function reportCommand(ids: string[], flags: ReportFlags): Promise<number> {
  const lang = docLangOf(flags.lang);
  if (!flags.out) throw new AppError('INVALID_INPUT', 'Where should the report go?', 'Pass --out DIR (it is created; report.md, charts and scripts go in it).');
  if (!ids.length)
    throw new AppError('INVALID_INPUT', 'Which results should the report show?', 'Give result or series ids: tagssh results report ID… --out DIR');
  const results = runsFor(await store(), ids);
  const { tagsshVersion } = await import('../../../version.js');
  const files = buildReport(results, { lang, now: new Date(), tagsshVersion: tagsshVersion() });
  const dir = resolve(flags.out);
  for (const f of files) {
    const path = join(dir, f.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.text);
  }
  process.stderr.write(`Wrote ${escapeControls(join(dir, 'report.md'))} with ${files.length - 1} chart and script file(s) beside it.\n`);
  return 0;
}
