import { compareResults, groupRuns, type Comparison } from './compare.js';
import { columnTitle, comparisonToMarkdown, displayScale, formatNumber, formatRelative, mdCell, significanceText } from './format.js';
import { metaRows } from './metaRows.js';
import { pricePerformance, type PricePerformance } from './pricePerf.js';
import type { BenchResult } from './result.js';
import { summarize } from './stats.js';
import { barChart } from './svgChart.js';
import { docWord, type DocLang, type DocWord } from './words.js';

// The report ready to post: a Markdown file with, per preset, the comparison table (means, 95%
// intervals, Welch's verdicts), a bar chart per headline metric as an SVG file beside it, the
// price-performance of the instance types, each column's statistics and metadata, and the exact
// script of every run (a file each under scripts/) — in English or Japanese. Pure: the CLI writes
// the files into a directory, the app packs them into a zip.

interface ReportFile {
  /** Relative to the report's directory: report.md, chart-1-….svg, scripts/<id>.sh. */
  name: string;
  text: string;
}

interface ReportOptions {
  lang: DocLang;
  now: Date;
  tagsshVersion: string;
  /** How many metrics of each comparison get a chart (the first ones; at least the headline). */
  charts?: number;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40) || 'metric';

/** A fence longer than any run of backticks in the text. */
function fenced(text: string, lang: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text.replace(/\n?$/, '\n')}${fence}`;
}

function pricePerfMarkdown(c: Comparison, pp: PricePerformance, lang: DocLang): string[] {
  const w = (k: DocWord, p: Record<string, string | number> = {}) => docWord(lang, k, p);
  const head = [w('metric'), w('unit'), ...c.columns.map((col) => mdCell(columnTitle(col)))];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`];
  lines.push(`| ${w('priceRow')} | USD/h | ${pp.prices.map((p) => (p === undefined ? w('priceUnknown') : `$${p}`)).join(' | ')} |`);
  for (const r of pp.rows) {
    const scale = displayScale(
      r.unit,
      r.cells.map((v) => v ?? 0),
    );
    lines.push(
      `| ${mdCell(r.label)} | ${mdCell(`${scale.unit} ${w('perHour')}`)} | ${r.cells.map((v) => (v === null ? w('priceUnknown') : formatNumber(v / scale.factor))).join(' | ')} |`,
    );
  }
  const notes = [w('priceSource', { source: pp.source, date: pp.asOf })];
  if (pp.unknown.length) notes.push(w('priceMissing', { what: pp.unknown.map((i) => columnTitle(c.columns[i]!)).join(', ') }));
  if (pp.stale) notes.push(w('priceOld', { days: pp.ageDays }));
  return [...lines, '', ...notes.map(mdCell)];
}

/** The price-performance table and its notes for a comparison of instance types; '' when it compares none. */
export function pricePerformanceMarkdown(c: Comparison, now: Date, lang: DocLang): string {
  const pp = pricePerformance(c, now);
  if (!pp || !pp.rows.length) return '';
  return [`### ${mdCell(docWord(lang, 'perHourTitle', { metric: pp.rows[0]!.label }))}`, '', ...pricePerfMarkdown(c, pp, lang)].join('\n') + '\n';
}

function chartFor(c: Comparison, rowIndex: number, lang: DocLang): string {
  const row = c.rows[rowIndex]!;
  const scale = displayScale(
    row.unit,
    row.cells.map((cell) => cell?.value ?? 0),
  );
  const bars = c.columns.map((col, i) => {
    const cell = row.cells[i];
    const rel = cell?.relative !== undefined ? `${formatRelative(cell.relative)}${cell.significance ? `, ${significanceText(cell, lang)}` : ''}` : undefined;
    return {
      label: columnTitle(col),
      value: (cell?.value ?? 0) / scale.factor,
      ...(cell?.stats.ci95 ? { low: cell.stats.ci95[0] / scale.factor, high: cell.stats.ci95[1] / scale.factor } : {}),
      muted: i === c.baseline,
      ...(rel ? { note: rel } : {}),
    };
  });
  return barChart(row.label, scale.unit, bars);
}

function statsMarkdown(runs: BenchResult[], lang: DocLang): string[] {
  const w = (k: DocWord) => docWord(lang, k);
  const ok = runs.filter((r) => r.status === 'ok');
  const keys = [...new Set(ok.flatMap((r) => r.metrics.map((m) => m.key)))];
  const head = [w('metric'), w('unit'), w('n'), w('median'), w('mean'), w('sd'), w('ci95'), w('min'), w('max')];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const key of keys) {
    const ms = ok.flatMap((r) => r.metrics.filter((m) => m.key === key));
    const s = summarize(ms.map((m) => m.value));
    const sc = displayScale(ms[0]!.unit, [s.mean]);
    const f = (v: number) => formatNumber(v / sc.factor);
    const ci = s.ci95 ? `${f(s.ci95[0])} – ${f(s.ci95[1])}` : '–';
    lines.push(
      `| ${mdCell(ms[0]!.label)} | ${mdCell(sc.unit)} | ${s.n} | ${f(s.median)} | ${f(s.mean)} | ${s.n > 1 ? f(s.sd) : '–'} | ${ci} | ${f(s.min)} | ${f(s.max)} |`,
    );
  }
  return lines;
}

function metaMarkdown(head: BenchResult, lang: DocLang): string[] {
  const lines = [`| | |`, `| --- | --- |`];
  for (const [key, value] of metaRows(head)) {
    const label = key.startsWith('storage.') ? docWord(lang, 'meta_storage', { param: key.slice(8) }) : docWord(lang, `meta_${key}` as DocWord);
    lines.push(`| ${mdCell(label)} | ${mdCell(value)} |`);
  }
  const params = Object.entries(head.params).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  if (params.length) lines.push(`| ${docWord(lang, 'parameters')} | ${mdCell(params.join(', '))} |`);
  return lines;
}

/** The report's files: report.md first, then its charts and scripts. */
export function buildReport(results: BenchResult[], o: ReportOptions): ReportFile[] {
  const { lang } = o;
  const w = (k: DocWord, p: Record<string, string | number> = {}) => docWord(lang, k, p);
  const presets = [...new Set(results.map((r) => r.preset))];
  const groups = groupRuns(results);
  const files: ReportFile[] = [];
  const md: string[] = [
    `# ${mdCell(w('reportTitle', { presets: presets.join(', ') }))}`,
    '',
    w('generated', { version: o.tagsshVersion, date: o.now.toISOString().slice(0, 10), results: groups.length, runs: results.length }),
  ];
  let chartNo = 0;
  for (const preset of presets) {
    const mine = results.filter((r) => r.preset === preset);
    const c = compareResults(mine);
    md.push('', `## ${mdCell(w('comparisonOf', { preset }))}`, '', comparisonToMarkdown(c, lang).trimEnd());
    const charted = c.rows.slice(0, Math.max(1, o.charts ?? 2));
    for (const row of charted) {
      const name = `chart-${++chartNo}-${slug(`${preset}-${row.key}`)}.svg`;
      files.push({ name, text: chartFor(c, c.rows.indexOf(row), lang) });
      md.push('', `![${mdCell(w('chartOf', { metric: row.label, unit: row.unit }))}](${name})`);
    }
    const pp = pricePerformance(c, o.now);
    if (pp && pp.rows.length) {
      md.push('', `### ${mdCell(w('perHourTitle', { metric: pp.rows[0]!.label }))}`, '', ...pricePerfMarkdown(c, pp, lang));
      const row = pp.rows[0]!;
      const name = `chart-${++chartNo}-${slug(`${preset}-${row.key}-per-dollar`)}.svg`;
      const scale = displayScale(
        row.unit,
        row.cells.map((v) => v ?? 0),
      );
      files.push({
        name,
        text: barChart(
          `${row.label} ${w('perHour')}`,
          `${scale.unit} ${w('perHour')}`,
          c.columns.map((col, i) => ({ label: columnTitle(col), value: (row.cells[i] ?? 0) / scale.factor, muted: i === c.baseline })),
        ),
      });
      md.push('', `![${mdCell(`${row.label} ${w('perHour')}`)}](${name})`);
    }
    const runsOf = groupRuns(mine);
    md.push('', `### ${w('statistics')}`);
    runsOf.forEach((runs, i) => md.push('', `#### ${mdCell(columnTitle(c.columns[i]!))}`, '', ...statsMarkdown(runs, lang)));
    md.push('', `### ${w('metadata')}`);
    runsOf.forEach((runs, i) => md.push('', `#### ${mdCell(columnTitle(c.columns[i]!))}`, '', ...metaMarkdown(runs[0]!, lang)));
    md.push('', `### ${w('scripts')}`, '', w('scriptIntro'));
    runsOf.forEach((runs, i) => {
      const links = runs.filter((r) => r.script).map((r) => `[${r.id}](scripts/${r.id}.sh)`);
      for (const r of runs) if (r.script) files.push({ name: `scripts/${r.id}.sh`, text: r.script });
      md.push('', `#### ${mdCell(columnTitle(c.columns[i]!))}`, '', links.join(', ') || '–');
      const first = runs.find((r) => r.script);
      if (first) md.push('', fenced(first.script!, 'sh'));
    });
  }
  return [{ name: 'report.md', text: md.join('\n') + '\n' }, ...files];
}
