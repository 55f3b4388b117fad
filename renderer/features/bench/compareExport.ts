import type { Comparison } from '../../../src/common/bench/compare.js';
import { formatComparison, type ExportFormat } from '../../../src/common/bench/format.js';
import { toAppError } from '../../../src/common/errors.js';
import { strToU8, zipSync } from 'fflate';
import type { Api } from '../../lib/api.js';
import { getLocale } from '../../i18n/index.js';
import { h } from '../../lib/dom.js';
import { t } from './messages.js';

// The comparison's downloads: the table as CSV (with a BOM for Excel), Markdown or JSON, and the
// backend's full report of the compared results as one zip.

function download(name: string, text: string | Uint8Array, type: string): void {
  const url = URL.createObjectURL(new Blob([typeof text === 'string' ? text : new Uint8Array(text)], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const MIME: Record<ExportFormat, string> = { csv: 'text/csv;charset=utf-8', md: 'text/markdown;charset=utf-8', json: 'application/json' };

/** One button per format, each downloading the comparison as that format. */
export function exportButtons(c: Comparison): HTMLElement[] {
  return (['csv', 'md', 'json'] as ExportFormat[]).map((f) =>
    h('button', {
      class: 'btn',
      type: 'button',
      'data-testid': `bench-export-${f}`,
      text: t('exportAs', { format: f === 'md' ? 'Markdown' : f.toUpperCase() }),
      ...(f === 'csv' ? { title: t('csvNote') } : {}),
      onClick: () => download(`tagssh-comparison.${f}`, formatComparison(c, f), MIME[f]),
    }),
  );
}

interface ReportExport {
  /** Where a failed report says why; kept across redraws of the comparison. */
  error: HTMLElement;
  button(c: Comparison): HTMLElement;
}

export function createReportExport(api: Api): ReportExport {
  const error = h('p', { class: 'bench-error', role: 'alert', 'data-testid': 'bench-report-error' });

  /** The report of the compared columns from the backend, packed as one zip for the download. */
  async function exportReport(c: Comparison): Promise<void> {
    error.textContent = '';
    try {
      const { files } = await api.call('bench.report', { ids: c.columns.map((col) => col.seriesId ?? col.resultId), lang: getLocale() === 'ja' ? 'ja' : 'en' });
      const zip = zipSync(Object.fromEntries(files.map((f) => [`tagssh-report/${f.name}`, strToU8(f.text)])));
      download('tagssh-report.zip', zip, 'application/zip');
    } catch (e) {
      error.textContent = toAppError(e).message;
    }
  }

  return {
    error,
    button: (c) =>
      h('button', {
        class: 'btn',
        type: 'button',
        'data-testid': 'bench-export-report',
        text: t('exportReport'),
        title: t('exportReportTitle'),
        onClick: () => void exportReport(c),
      }),
  };
}
