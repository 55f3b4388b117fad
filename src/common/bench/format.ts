import type { CompareCell, CompareColumn, Comparison } from './compare.js';
import type { BenchResult } from './result.js';
import { metaRows } from './metaRows.js';
import { docWord, type DocLang } from './words.js';

// Comparison and result exports as strings (no fs): CSV (RFC 4180, with spreadsheet formula
// injection neutralised in text cells), Markdown (pipes and newlines escaped) and JSON.
// CSV starts with a UTF-8 byte order mark: Excel on a Japanese Windows reads a CSV without one as
// Shift_JIS and garbles every non-ASCII name; with it, Excel, LibreOffice and Numbers all read
// UTF-8. Scripts that want bare UTF-8 ask for it (`tagssh results --format csv --no-bom`).

export type ExportFormat = 'csv' | 'md' | 'json';

const UTF8_BOM = '\uFEFF';

interface ExportOptions {
  /** CSV only: start with a UTF-8 byte order mark (default true). */
  bom?: boolean;
}

/** Formats a number for people: up to 4 significant decimals, no exponent for normal ranges. */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  if (abs !== 0 && (abs >= 1e15 || abs < 1e-4)) return v.toExponential(3);
  if (abs >= 1000) return v.toFixed(abs >= 1e6 ? 0 : 1).replace(/\.0$/, '');
  return String(Number(v.toPrecision(4)));
}

const SCALES: Record<string, [number, string][]> = {
  'bit/s': [
    [1e12, 'Tbit/s'],
    [1e9, 'Gbit/s'],
    [1e6, 'Mbit/s'],
    [1e3, 'kbit/s'],
  ],
  B: [
    [1024 ** 4, 'TiB'],
    [1024 ** 3, 'GiB'],
    [1024 ** 2, 'MiB'],
    [1024, 'KiB'],
  ],
  'packets/s': [
    [1e6, 'Mpackets/s'],
    [1e3, 'kpackets/s'],
  ],
};

/** A readable unit for a row of values (bit/s → Gbit/s, B → MiB …): divide the values by factor. */
export function displayScale(unit: string, values: number[]): { factor: number; unit: string } {
  const max = Math.max(0, ...values.map((v) => Math.abs(v)).filter(Number.isFinite));
  for (const [factor, name] of SCALES[unit] ?? []) if (max >= factor) return { factor, unit: name };
  return { factor: 1, unit };
}

/** "23.42 Gbit/s" for people, "2" for a count; exports keep the raw value and unit. `word` names the unit in a face's language. */
export function formatWithUnit(value: number, unit: string, word: (unit: string) => string = (u) => u): string {
  const s = displayScale(unit, [value]);
  return s.unit === 'count' ? formatNumber(value) : `${formatNumber(value / s.factor)} ${word(s.unit)}`;
}

export function formatRelative(r: number | undefined): string {
  if (r === undefined) return '';
  // A difference that rounds to zero prints as +0.0%, never -0.0%.
  const pct = Math.abs(r) < 0.0005 ? 0 : r * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}

/** One CSV field: quoted when needed; text starting with = + - @ or a tab gets a leading '. */
export function csvField(v: string | number): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  let s = v;
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

function csv(rows: (string | number)[][], o: ExportOptions = {}): string {
  return (o.bom === false ? '' : UTF8_BOM) + rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** Markdown table cell: pipes, backslashes and newlines escaped so a name cannot break the table. */
export function mdCell(s: string): string {
  return s
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n/g, ' ')
    .replace(/([<>`*_[\]])/g, '\\$1');
}

/** A comparison column's heading: instance, type and, for matrix runs, the values that differ. */
export function columnTitle(c: Comparison['columns'][number]): string {
  return [c.title, c.type, c.variant].filter(Boolean).join(' · ');
}

/** How a column's runs went: "5 (RSD 1.2%, stable below 3.5%)", or just the count. */
function runsText(col: CompareColumn, lang: DocLang = 'en'): string {
  const rsd = col.rsd !== undefined ? col.rsd.toFixed(1) : undefined;
  if (rsd !== undefined && col.stable !== undefined && col.threshold !== undefined)
    return docWord(lang, col.stable ? 'stableCell' : 'unstableCell', { n: col.runs, rsd, threshold: col.threshold });
  return rsd !== undefined ? docWord(lang, 'rsdCell', { n: col.runs, rsd }) : docWord(lang, 'runsCell', { n: col.runs });
}

/** The words for a cell's difference: "significant", "within noise", "cannot tell: 1 run". */
export function significanceText(cell: CompareCell, lang: DocLang = 'en'): string {
  if (!cell.significance) return '';
  if (cell.significance.method === 'single-run') return docWord(lang, 'untestable');
  return docWord(lang, cell.significance.significant ? 'significant' : 'noise');
}

/** Half the width of a cell's 95% confidence interval ('' for a single run). */
function ciHalf(cell: CompareCell): number | undefined {
  return cell.stats.ci95 ? (cell.stats.ci95[1] - cell.stats.ci95[0]) / 2 : undefined;
}

export function comparisonToCsv(c: Comparison, o: ExportOptions = {}): string {
  const header = ['metric', 'unit'];
  for (const col of c.columns) {
    const t = columnTitle(col);
    header.push(t, `${t} vs baseline`, `${t} runs`, `${t} sd`, `${t} 95% CI low`, `${t} 95% CI high`, `${t} Welch p`, `${t} significance`);
  }
  const blank = ['', '', '', '', '', '', ''];
  const rows: (string | number)[][] = [
    header,
    ['instance id', '', ...c.columns.flatMap((col) => [col.instanceId ?? '', ...blank])],
    ['result id', '', ...c.columns.flatMap((col) => [col.seriesId ?? col.resultId, ...blank])],
  ];
  for (const r of c.rows)
    rows.push([
      r.label,
      r.unit,
      ...r.cells.flatMap((cell) =>
        cell
          ? [
              cell.value,
              cell.relative === undefined ? '' : Number((cell.relative * 100).toFixed(2)),
              cell.stats.n,
              cell.stats.n > 1 ? cell.stats.sd : '',
              cell.stats.ci95?.[0] ?? '',
              cell.stats.ci95?.[1] ?? '',
              cell.significance?.method === 'welch' ? Number(cell.significance.p.toPrecision(4)) : '',
              significanceText(cell),
            ]
          : ['', ...blank],
      ),
    ]);
  return csv(rows, o);
}

/** One Markdown cell of a comparison: "2926 ± 14 (-7.7%, significant)". */
function mdValue(cell: CompareCell, factor: number, lang: DocLang): string {
  const half = ciHalf(cell);
  const value = `${formatNumber(cell.value / factor)}${half !== undefined ? ` ± ${formatNumber(half / factor)}` : ''}`;
  if (cell.relative === undefined) return value;
  const verdict = significanceText(cell, lang);
  return `${value} (${formatRelative(cell.relative)}${verdict ? `, ${verdict}` : ''})`;
}

export function comparisonToMarkdown(c: Comparison, lang: DocLang = 'en'): string {
  const head = [
    docWord(lang, 'metric'),
    docWord(lang, 'unit'),
    ...c.columns.map((col, i) => `${mdCell(columnTitle(col))}${i === c.baseline ? ` (${docWord(lang, 'baseline')})` : ''}`),
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`];
  lines.push(`| ${docWord(lang, 'runs')} |  | ${c.columns.map((col) => mdCell(runsText(col, lang))).join(' | ')} |`);
  for (const r of c.rows) {
    const scale = displayScale(
      r.unit,
      r.cells.map((cell) => cell?.value ?? 0),
    );
    lines.push(`| ${mdCell(r.label)} | ${mdCell(scale.unit)} | ${r.cells.map((cell) => (cell ? mdValue(cell, scale.factor, lang) : '–')).join(' | ')} |`);
  }
  return lines.join('\n') + '\n\n' + docWord(lang, 'legend') + '\n';
}

function comparisonToJson(c: Comparison): string {
  return JSON.stringify(c, null, 2) + '\n';
}

export function formatComparison(c: Comparison, f: ExportFormat, o: ExportOptions = {}): string {
  return f === 'csv' ? comparisonToCsv(c, o) : f === 'md' ? comparisonToMarkdown(c) : comparisonToJson(c);
}

/** A results list (one row per run) without raw output. */
/**
 * The metadata a result list exports after its first columns (metaRows' values, so details, the
 * report and exports say the same): the run's place in its series, then the host as it ran.
 */
const META_COLUMNS: [key: string, header: string][] = [
  ['region', 'region'],
  ['az', 'az'],
  ['ami', 'ami'],
  ['amiName', 'ami name'],
  ['kernel', 'kernel'],
  ['cpuModel', 'cpu model'],
  ['vcpus', 'vcpus'],
  ['cpufreq', 'cpufreq governor / driver'],
  ['toolVersion', 'tool version'],
  ['tagsshVersion', 'tagssh version'],
  ['ended', 'ended'],
];

function metaCells(r: BenchResult): string[] {
  const rows = metaRows(r);
  const byKey = new Map(rows);
  const storage = rows.filter(([k]) => k.startsWith('storage.')).map(([k, v]) => `${k.slice('storage.'.length)}: ${v}`);
  return [r.series?.id ?? '', r.series ? String(r.series.index + 1) : '', ...META_COLUMNS.map(([k]) => byKey.get(k) ?? ''), storage.join('; ')];
}

export function formatResultList(results: BenchResult[], f: ExportFormat, o: ExportOptions = {}): string {
  const rows = results.map((r) => ({
    id: r.id,
    preset: r.preset,
    status: r.status,
    instance: r.instance.label,
    instanceId: r.instance.instanceId ?? '',
    type: r.instance.type ?? '',
    startedAt: r.startedAt,
    headline: r.metrics[0] ? `${r.metrics[0].label}: ${formatWithUnit(r.metrics[0].value, r.metrics[0].unit)}` : (r.error?.message ?? ''),
  }));
  if (f === 'json')
    return (
      JSON.stringify(
        results.map(({ raw: _raw, ...rest }) => rest),
        null,
        2,
      ) + '\n'
    );
  const header = [
    'id',
    'preset',
    'status',
    'instance',
    'instance id',
    'type',
    'started',
    'headline',
    'series',
    'run',
    ...META_COLUMNS.map(([, h]) => h),
    'storage',
  ];
  const data = rows.map((r, i) => [r.id, r.preset, r.status, r.instance, r.instanceId, r.type, r.startedAt, r.headline, ...metaCells(results[i]!)]);
  if (f === 'csv') return csv([header, ...data], o);
  return [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...data.map((d) => `| ${d.map(mdCell).join(' | ')} |`)].join('\n') + '\n';
}
