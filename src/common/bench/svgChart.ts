// Charts as SVG text, drawn here so that the report's charts are plain files beside its Markdown
// (no browser needed to make them) and the app's History view draws the same pictures. Every
// label is XML-escaped: Names and mount points are the instance owner's text.

export function xmlEscape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const FONT = 'font-family="sans-serif" font-size="12"';
const TITLE_FONT = 'font-family="sans-serif" font-size="15" font-weight="bold"';
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const fmt = (v: number) => (Math.abs(v) >= 1000 ? v.toFixed(0) : String(Number(v.toPrecision(4))));

export interface Bar {
  label: string;
  value: number;
  /** A 95% interval drawn as a whisker. */
  low?: number;
  high?: number;
  /** Drawn grey: the baseline. */
  muted?: boolean;
  /** A note after the value: "+3.1%, significant". */
  note?: string;
}

/** Horizontal bars, one per column, with the value (and interval) at the end of each. */
export function barChart(title: string, unit: string, bars: Bar[]): string {
  const width = 760;
  const left = 230;
  const right = 190;
  const row = 30;
  const top = 44;
  const height = top + bars.length * row + 30;
  const max = Math.max(0, ...bars.map((b) => Math.max(b.value, b.high ?? b.value)));
  const span = width - left - right;
  const x = (v: number) => left + (max > 0 ? (Math.max(0, v) / max) * span : 0);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${xmlEscape(title)}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" ${TITLE_FONT} fill="#1f2933">${xmlEscape(clip(title, 90))}</text>`,
    `<text x="${width - 12}" y="22" ${FONT} text-anchor="end" fill="#52606d">${xmlEscape(unit)}</text>`,
    `<line x1="${left}" y1="${top - 6}" x2="${left}" y2="${top + bars.length * row}" stroke="#9aa5b1"/>`,
  ];
  bars.forEach((b, i) => {
    const y = top + i * row;
    parts.push(`<text x="${left - 8}" y="${y + 17}" ${FONT} text-anchor="end" fill="#1f2933">${xmlEscape(clip(b.label, 34))}</text>`);
    parts.push(`<rect x="${left}" y="${y + 5}" width="${(x(b.value) - left).toFixed(1)}" height="${row - 10}" fill="${b.muted ? '#9aa5b1' : '#3d8bfd'}"/>`);
    if (b.low !== undefined && b.high !== undefined) {
      const [lo, hi] = [x(b.low), x(b.high)];
      const mid = y + row / 2;
      parts.push(
        `<path d="M${lo.toFixed(1)} ${mid}H${hi.toFixed(1)}M${lo.toFixed(1)} ${mid - 6}v12M${hi.toFixed(1)} ${mid - 6}v12" stroke="#1f2933" fill="none"/>`,
      );
    }
    const text = `${fmt(b.value)}${b.note ? ` (${b.note})` : ''}`;
    parts.push(`<text x="${Math.max(x(b.value), x(b.high ?? 0)) + 6}" y="${y + 17}" ${FONT} fill="#1f2933">${xmlEscape(clip(text, 40))}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

interface LinePoint {
  /** Milliseconds since the epoch. */
  time: number;
  value: number;
  low?: number;
  high?: number;
  /** Drawn as a hollow ring with a dashed line before it: the instance was rebuilt (a new instance id). */
  rebuilt?: boolean;
  /** Drawn larger: the baseline the latest point is compared to. */
  baseline?: boolean;
  /** Drawn red: significantly worse than the baseline. */
  regression?: boolean;
}

/** A metric over time: one point per run or series, the rebuilds and the baseline marked. */
export function lineChart(title: string, unit: string, points: LinePoint[], dateText: (ms: number) => string): string {
  const width = 760;
  const height = 320;
  const [left, right, top, bottom] = [70, 20, 40, 50];
  const times = points.map((p) => p.time);
  const values = points.flatMap((p) => [p.value, p.low ?? p.value, p.high ?? p.value]);
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const [v0, v1] = [Math.min(0, ...values), Math.max(...values, 0) || 1];
  const x = (t: number) => left + (t1 > t0 ? ((t - t0) / (t1 - t0)) * (width - left - right) : (width - left - right) / 2);
  const y = (v: number) => top + (1 - (v - v0) / (v1 - v0)) * (height - top - bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${xmlEscape(title)}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" ${TITLE_FONT} fill="#1f2933">${xmlEscape(clip(title, 90))}</text>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="#9aa5b1"/>`,
    `<line x1="${left}" y1="${height - bottom}" x2="${width - right}" y2="${height - bottom}" stroke="#9aa5b1"/>`,
    `<text x="${left - 6}" y="${y(v1) + 4}" ${FONT} text-anchor="end" fill="#52606d">${xmlEscape(fmt(v1))}</text>`,
    `<text x="${left - 6}" y="${y(v0) + 4}" ${FONT} text-anchor="end" fill="#52606d">${xmlEscape(fmt(v0))}</text>`,
    `<text x="${left - 6}" y="${top - 8}" ${FONT} text-anchor="end" fill="#52606d">${xmlEscape(unit)}</text>`,
  ];
  if (points.length) {
    parts.push(`<text x="${left}" y="${height - bottom + 18}" ${FONT} fill="#52606d">${xmlEscape(dateText(t0))}</text>`);
    if (t1 > t0)
      parts.push(`<text x="${width - right}" y="${height - bottom + 18}" ${FONT} text-anchor="end" fill="#52606d">${xmlEscape(dateText(t1))}</text>`);
  }
  points.forEach((p, i) => {
    const [px, py] = [x(p.time), y(p.value)];
    if (i > 0) {
      const q = points[i - 1]!;
      parts.push(
        `<line x1="${x(q.time).toFixed(1)}" y1="${y(q.value).toFixed(1)}" x2="${px.toFixed(1)}" y2="${py.toFixed(1)}" stroke="#3d8bfd"${p.rebuilt ? ' stroke-dasharray="5 4"' : ''}/>`,
      );
    }
    if (p.low !== undefined && p.high !== undefined)
      parts.push(`<line x1="${px.toFixed(1)}" y1="${y(p.low).toFixed(1)}" x2="${px.toFixed(1)}" y2="${y(p.high).toFixed(1)}" stroke="#52606d"/>`);
    const fill = p.regression ? '#d64545' : p.rebuilt ? '#ffffff' : '#3d8bfd';
    parts.push(
      `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="${p.baseline ? 7 : 4.5}" fill="${fill}" stroke="${p.regression ? '#d64545' : '#1f5fbf'}" stroke-width="2"/>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
