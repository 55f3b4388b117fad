import { onLocaleChange } from '../i18n/index.js';
import type { Disposables } from './disposables.js';

// Text bound to the app's words: each binding paints now and again on every language switch, so a
// view says what a label is once instead of keeping a second "apply the words" pass in step.

type Words = () => string;

/** Runs `paint` now and after every language switch, until `store` is disposed. */
export function onWords(store: Disposables, paint: () => void): void {
  paint();
  store.add(onLocaleChange(() => paint()));
}

export function bindText(store: Disposables, el: { textContent: string | null }, words: Words): void {
  onWords(store, () => (el.textContent = words()));
}

/** An attribute (aria-label, title, placeholder…) in the app's words. */
export function bindAttr(store: Disposables, el: Pick<Element, 'setAttribute'>, name: string, words: Words): void {
  onWords(store, () => el.setAttribute(name, words()));
}

/**
 * A status line that says one thing at a time (Saved, an error, a hint) and says it again in the
 * new language after a switch; `say(null)` empties it.
 */
export function statusLine(store: Disposables, el: { textContent: string | null }): (words: Words | null) => void {
  let said: Words | null = null;
  onWords(store, () => (el.textContent = said ? said() : ''));
  return (words) => {
    said = words;
    el.textContent = words ? words() : '';
  };
}
