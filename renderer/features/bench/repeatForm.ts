import { DEFAULT_MAX_RUNS, DEFAULT_MIN_RUNS, DEFAULT_STABLE_RSD, MAX_REPEAT, RepeatPlanSchema, type RepeatPlan } from '../../../src/common/bench/repeat.js';
import { h } from '../../lib/dom.js';
import { t } from './messages.js';

// The form's "Repeat" choice: once, N times, or until the headline metric is stable (its relative
// standard deviation under a threshold, between a minimum and a maximum number of runs).

interface RepeatForm {
  el: HTMLElement;
  /** The plan asked for; undefined for a single run; an error message when a number is wrong. */
  plan(): { plan?: RepeatPlan; error?: string };
  words(): void;
}

export function createRepeatForm(changed: () => void): RepeatForm {
  const mode = h('select', { class: 'picker', 'data-testid': 'bench-repeat' });
  const num = (testid: string, value: number, min: number, step = '1') =>
    h('input', { type: 'number', min: String(min), max: String(MAX_REPEAT), step, value: String(value), 'data-testid': testid });
  const count = num('bench-repeat-count', 3, 1);
  const minRuns = num('bench-repeat-min', DEFAULT_MIN_RUNS, 2);
  const maxRuns = num('bench-repeat-max', DEFAULT_MAX_RUNS, 2);
  const threshold = h('input', { type: 'number', min: '0.1', max: '100', step: '0.1', value: String(DEFAULT_STABLE_RSD), 'data-testid': 'bench-repeat-rsd' });
  const labels = { mode: h('span'), count: h('span'), min: h('span'), max: h('span'), rsd: h('span') };
  const fixedRow = h('label', { class: 'bench-field', hidden: true }, labels.count, count);
  const stableRow = h(
    'div',
    { class: 'bench-repeat-stable', hidden: true },
    h('label', { class: 'bench-field' }, labels.min, minRuns),
    h('label', { class: 'bench-field' }, labels.max, maxRuns),
    h('label', { class: 'bench-field' }, labels.rsd, threshold),
  );
  const help = h('p', { class: 'bench-help', hidden: true });
  const el = h('fieldset', { class: 'bench-repeat-box' }, h('label', { class: 'bench-field' }, labels.mode, mode), fixedRow, stableRow, help);

  function show(): void {
    fixedRow.hidden = mode.value !== 'fixed';
    stableRow.hidden = mode.value !== 'until-stable';
    help.hidden = mode.value !== 'until-stable';
  }
  for (const x of [mode, count, minRuns, maxRuns, threshold])
    x.addEventListener('change', () => {
      show();
      changed();
    });

  return {
    el,
    plan() {
      if (mode.value === 'once') return {};
      const raw =
        mode.value === 'fixed'
          ? { mode: 'fixed', count: Number(count.value) }
          : { mode: 'until-stable', min: Number(minRuns.value), max: Number(maxRuns.value), threshold: Number(threshold.value) };
      const r = RepeatPlanSchema.safeParse(raw);
      if (r.success) return { plan: r.data };
      return { error: mode.value === 'fixed' ? t('repeatCountBad', { max: MAX_REPEAT }) : t('repeatStableBad', { max: MAX_REPEAT }) };
    },
    words() {
      const chosen = mode.value || 'once';
      mode.replaceChildren(
        h('option', { value: 'once', text: t('repeatOnce') }),
        h('option', { value: 'fixed', text: t('repeatFixed') }),
        h('option', { value: 'until-stable', text: t('repeatStable') }),
      );
      mode.value = chosen;
      labels.mode.textContent = t('repeat');
      mode.setAttribute('aria-label', t('repeat'));
      labels.count.textContent = t('repeatCount');
      count.setAttribute('aria-label', t('repeatCount'));
      labels.min.textContent = t('repeatMin');
      minRuns.setAttribute('aria-label', t('repeatMin'));
      labels.max.textContent = t('repeatMax');
      maxRuns.setAttribute('aria-label', t('repeatMax'));
      labels.rsd.textContent = t('repeatRsd');
      threshold.setAttribute('aria-label', t('repeatRsd'));
      help.textContent = t('repeatHelp');
      show();
    },
  };
}
