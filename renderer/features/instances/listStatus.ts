import type { InstanceList } from '../../../src/common/contract.js';
import type { AppError } from '../../../src/common/errors.js';
import { h, clear } from '../../lib/dom.js';
import { ago } from '../../lib/time.js';
import { describeError } from '../../i18n/errors.js';
import type { SettingsField } from '../settings/view.js';
import { t } from './messages.js';

// The line under the list's toolbar: how many instances it shows, or what went wrong and what
// fixes it (a button to the picker or to the Settings field), and how old the list is.

interface ListState {
  list: InstanceList | null;
  error: AppError | null;
  loading: boolean;
  /** When the next automatic retry runs (0: none planned). */
  retryAt: number;
  query: string;
  shownCount: number;
}

interface ListStatusDeps {
  /** Opens the region picker (offered when no region is set at all). */
  chooseRegion(): void;
  openSettings?(field?: SettingsField): void;
}

export function createListStatus(deps: ListStatusDeps) {
  const status = h('div', { class: 'list-status', role: 'status' });
  const updated = h('span', { class: 'updated', 'data-testid': 'updated' });

  function paintUpdated(list: InstanceList | null) {
    updated.textContent = list ? t(list.fromCache ? 'updatedCached' : 'updated', { ago: ago(list.fetchedAt) }) : '';
  }

  function errorLine(error: AppError, retryAt: number) {
    if ((error.details as { reason?: string } | undefined)?.reason === 'no-region') {
      // No region at all: say so (not "a region is not valid") and offer the picker that sets one.
      status.append(
        h('strong', { text: t('noRegion'), title: error.message }),
        ' ',
        h('span', { class: 'hint', text: t('noRegionHint') }),
        ' ',
        h('button', { class: 'btn subtle', type: 'button', text: t('chooseRegion'), onClick: () => deps.chooseRegion() }),
      );
      return;
    }
    // The app's words for the error (the shared catalogue), with a button to the Settings field that fixes it.
    const words = describeError(error);
    status.append(
      h('strong', { text: words.title, title: words.detail ?? '' }),
      words.hint ? ' ' : '',
      words.hint ? h('span', { class: 'hint', text: words.hint }) : '',
    );
    if (retryAt)
      status.append(
        h('span', { class: 'retry', 'data-testid': 'list-retry', text: t('retrying', { seconds: Math.max(1, Math.ceil((retryAt - Date.now()) / 1000)) }) }),
      );
    if (words.field && deps.openSettings) {
      const field = words.field;
      status.append(' ', h('button', { class: 'btn subtle', type: 'button', text: t('openSettings'), onClick: () => deps.openSettings?.(field) }));
    }
  }

  function paint(s: ListState) {
    clear(status);
    status.classList.toggle('error', !!s.error);
    if (s.error) errorLine(s.error, s.retryAt);
    else if (s.loading && !s.list) status.append(t('loading'));
    else if (s.list) {
      const n = s.list.instances.length;
      status.append(s.query ? t('countFiltered', { shown: s.shownCount, n }) : n === 1 ? t('countOne') : t('count', { n }));
      if (s.loading) status.append(t('refreshing'));
    }
    paintUpdated(s.list);
  }

  return { status, updated, paint, paintUpdated };
}
export type ListStatus = ReturnType<typeof createListStatus>;
