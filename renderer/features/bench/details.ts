import type { BenchResult } from '../../../src/common/bench/result.js';
import { displayScale, formatNumber } from '../../../src/common/bench/format.js';
import { h, clear, append } from '../../lib/dom.js';
import { dateOf, failureHint, peerSentence, statusWord } from './describe.js';
import { t } from './messages.js';

// One result's details under the result list: status, hosts, peer address, dates, the error and
// what to do about it, parameters, metrics, file systems, facts, notes and the raw output.

export interface DetailsState {
  id: string;
  result?: BenchResult;
  error?: string;
}

export interface DetailsActions {
  close(): void;
  /** A way to the setting that fixes this failure, when there is one. */
  settingsButton(r: BenchResult): HTMLElement | null;
}

function kv(rows: [string, string | Node][]): HTMLElement {
  return h('dl', { class: 'bench-kv' }, ...rows.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)]));
}

function rawBlock(title: string, text: string | undefined, testid: string): HTMLElement | null {
  if (text === undefined) return null;
  return h('div', { class: 'bench-raw' }, h('h4', { text: title }), h('pre', { class: 'bench-log', 'data-testid': testid, text: text || t('empty') }));
}

export function renderDetails(detailsBox: HTMLElement, details: DetailsState | null, act: DetailsActions): void {
  clear(detailsBox);
  if (!details) {
    detailsBox.hidden = true;
    return;
  }
  detailsBox.hidden = false;
  const close = h('button', { class: 'btn', type: 'button', text: t('close'), 'data-testid': 'bench-details-close' });
  close.addEventListener('click', () => act.close());
  const r = details.result;
  if (!r) {
    detailsBox.append(
      h('div', { class: 'bench-results-head' }, h('h2', { text: t('details') }), h('span', { class: 'spacer' }), close),
      h('p', { class: details.error ? 'bench-error' : 'bench-help', text: details.error ?? t('loading') }),
    );
    return;
  }
  const hostText = (x: BenchResult['instance']) => [x.label, x.type, x.instanceId, x.az, x.host].filter(Boolean).join(' · ');
  const hint = failureHint(r);
  const scale = (m: BenchResult['metrics'][number]) => displayScale(m.unit, [m.value]);
  append(detailsBox, [
    h(
      'div',
      { class: 'bench-results-head' },
      h('h2', { text: t('detailsOf', { preset: r.preset, name: r.instance.label }) }),
      h('span', { class: 'spacer' }),
      close,
    ),
    kv([
      [t('status'), h('span', { class: `bench-status-${r.status}`, text: statusWord(r.status) })],
      [t('host'), hostText(r.instance)],
      ...(r.peer ? [[t('peerHost'), hostText(r.peer)] as [string, string]] : []),
      ...(r.peerAddress && r.peer ? [[t('peerAddress'), peerSentence(r.peer.label, r.peerAddress)] as [string, string]] : []),
      [t('started'), dateOf(r.startedAt)],
      [t('ended'), dateOf(r.endedAt)],
      ...(r.exitCode !== undefined ? [[t('exitCode'), String(r.exitCode ?? '–')] as [string, string]] : []),
      ...(r.toolVersion ? [[t('toolVersion'), r.toolVersion] as [string, string]] : []),
    ]),
    r.error
      ? h(
          'div',
          { class: 'bench-error-box', 'data-testid': 'bench-details-error' },
          h('strong', { text: `${t('error')}: ` }),
          r.error.message,
          hint ? h('p', { class: 'bench-hint', text: `${t('whatToDo')}: ${hint}` }) : null,
          act.settingsButton(r),
        )
      : null,
    h('h3', { text: t('parameters') }),
    h('div', { 'data-testid': 'bench-details-params' }, kv(Object.entries(r.params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))),
    r.metrics.length ? h('h3', { text: t('metrics') }) : null,
    r.metrics.length
      ? h(
          'table',
          { class: 'grid bench-compare-table' },
          h(
            'tbody',
            {},
            ...r.metrics.map((m) =>
              h(
                'tr',
                {},
                h('td', { text: m.label }),
                h('td', { class: 'num', text: formatNumber(m.value / scale(m).factor) }),
                h('td', { text: scale(m).unit }),
              ),
            ),
          ),
        )
      : null,
    r.mounts && Object.keys(r.mounts).length ? h('h3', { text: t('fileSystems') }) : null,
    r.mounts && Object.keys(r.mounts).length
      ? h(
          'div',
          { 'data-testid': 'bench-details-mounts' },
          kv(
            Object.entries(r.mounts).map(([param, m]) => [
              param,
              t('mountLine', { dir: m.dir, label: m.label, source: m.source, mountPoint: m.mountPoint, options: m.options }),
            ]),
          ),
        )
      : null,
    Object.keys(r.facts).length ? h('h3', { text: t('facts') }) : null,
    Object.keys(r.facts).length ? kv(Object.entries(r.facts).filter(([k]) => k !== 'lshw')) : null,
    r.notes.length ? h('h3', { text: t('notes') }) : null,
    r.notes.length ? h('ul', {}, ...r.notes.map((n) => h('li', { text: n }))) : null,
    h('h3', { text: t('rawOutput') }),
    rawBlock(t('stdout'), r.raw.stdout, 'bench-raw-stdout'),
    rawBlock(t('stderr'), r.raw.stderr, 'bench-raw-stderr'),
    rawBlock(t('peerStdout'), r.raw.peerStdout, 'bench-raw-peer-stdout'),
    rawBlock(t('peerStderr'), r.raw.peerStderr, 'bench-raw-peer-stderr'),
  ]);
}
