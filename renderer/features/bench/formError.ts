import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { statusLine } from '../../lib/words.js';
import { t, type BenchMessage } from './messages.js';

// The line under the Benchmarks form that says what is wrong: a missing choice in the app's words
// (said again after a language switch) or the engine's own message.

export type FormProblem = { key: BenchMessage; params?: Record<string, string> } | { text: string };

interface FormError {
  el: HTMLElement;
  /** Says the problem; null empties the line. */
  say(problem: FormProblem | null): void;
}

export function createFormError(store: Disposables): FormError {
  const el = h('div', { class: 'bench-error', role: 'alert', 'data-testid': 'bench-form-error' });
  const line = statusLine(store, el);
  return {
    el,
    say: (p) => line(!p ? null : 'text' in p ? () => p.text : () => t(p.key, p.params)),
  };
}
