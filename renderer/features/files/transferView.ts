import { h } from '../../lib/dom.js';
import { formatBytes } from '../../lib/bytes.js';
import { t } from './messages.js';
import { shown } from './shown.js';

// One transfer in the file panel's list: its name and direction, a progress bar, what became of
// it, and a Cancel (while running) or Dismiss button.

export interface TransferView {
  id: string;
  direction: 'up' | 'down';
  name: string;
  bytes: number;
  total: number;
  outcome: 'running' | 'done' | 'cancelled' | 'failed';
  reason?: string;
  row: HTMLElement;
  label: HTMLElement;
  action: HTMLButtonElement;
  bar: HTMLProgressElement;
  status: HTMLElement;
}

export function createTransferView(direction: 'up' | 'down', name: string, total: number, onAction: (v: TransferView) => void): TransferView {
  // Built once and updated in place: progress arrives many times a second, and a Cancel button
  // rebuilt on each would slip away from the pointer pressing it.
  const v: TransferView = {
    id: crypto.randomUUID(),
    direction,
    name,
    bytes: 0,
    total,
    outcome: 'running',
    row: h('li', { class: 'files-transfer' }),
    label: h('span', { class: 'files-transfer-name' }),
    action: h('button', { class: 'btn subtle', type: 'button', onClick: () => onAction(v) }),
    bar: h('progress', {}),
    status: h('div', { class: 'files-transfer-status' }),
  };
  v.row.append(h('div', { class: 'files-transfer-head' }, v.label, v.action), v.bar, v.status);
  paintTransfer(v);
  return v;
}

/** Marks the transfer's end (its bar full when done) and repaints it. */
export function settleTransfer(v: TransferView, outcome: TransferView['outcome'], reason?: string): void {
  v.outcome = outcome;
  if (reason !== undefined) v.reason = reason;
  if (outcome === 'done') v.bytes = v.total;
  paintTransfer(v);
}

export function paintTransfer(v: TransferView): void {
  const direction = t(v.direction === 'up' ? 'up_' : 'down_');
  const name = shown(v.name);
  const percent = v.total ? Math.floor((v.bytes / v.total) * 100) : v.outcome === 'done' ? 100 : 0;
  const status =
    v.outcome === 'running'
      ? t('transferProgress', { done: formatBytes(v.bytes), total: formatBytes(v.total), percent })
      : v.outcome === 'done'
        ? t('transferDone')
        : v.outcome === 'cancelled'
          ? t('transferCancelled')
          : t('transferFailed', { reason: v.reason ?? '' });
  v.row.dataset.outcome = v.outcome;
  v.label.textContent = t('transferLabel', { direction, name });
  v.action.textContent = v.outcome === 'running' ? t('cancelTransfer') : t('dismiss');
  v.action.setAttribute(
    'aria-label',
    v.outcome === 'running' ? t('cancelTransferLabel', { direction, name }) : `${t('dismiss')} ${t('transferLabel', { direction, name })}`,
  );
  v.bar.max = Math.max(1, v.total);
  v.bar.value = v.bytes;
  v.bar.setAttribute('aria-label', t('transferLabel', { direction, name }));
  v.status.textContent = status;
}
