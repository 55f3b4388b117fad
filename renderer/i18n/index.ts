import { fillTemplate } from '../../src/common/fillTemplate.js';

// The app's words in English and Japanese. Each feature keeps its own catalogue next to its code
// (`defineMessages({ en: {...}, ja: {...} })`); the type makes both languages carry the same keys,
// so a missing translation is a compile error, not a blank label. The contract carries error codes
// and data; only the renderer turns them into words.

const LOCALES = ['en', 'ja'] as const;
export type Locale = (typeof LOCALES)[number];
type LocalePreference = Locale | 'auto';
type MessageParams = Record<string, string | number>;

let current: Locale = 'en';
const listeners = new Set<(locale: Locale) => void>();

/** The locale for a Settings preference: 'auto' follows the OS/browser languages, first match wins. */
export function pickLocale(preference: LocalePreference, languages: readonly string[]): Locale {
  if (preference !== 'auto') return preference;
  for (const tag of languages) {
    const base = tag.toLowerCase().split('-')[0];
    if ((LOCALES as readonly string[]).includes(base ?? '')) return base as Locale;
  }
  return 'en';
}

export function getLocale(): Locale {
  return current;
}

/** Switches every catalogue at once and tells the views that asked to be told. */
export function setLocale(locale: Locale): void {
  if (locale === current) return;
  current = locale;
  if (typeof document !== 'undefined') document.documentElement.lang = locale;
  for (const cb of listeners) cb(locale);
}

export function onLocaleChange(cb: (locale: Locale) => void): () => void {
  listeners.add(cb);
  return () => listeners.delete(cb);
}

/** `{name}` placeholders are replaced by params; values are plain text (the DOM builder never parses markup). */
export function format(template: string, params?: MessageParams): string {
  return fillTemplate(template, params);
}

type Translate<K extends string> = (key: K, params?: MessageParams) => string;

/** A feature's catalogue: returns its `t()`, which reads the current locale on every call. */
export function defineMessages<K extends string>(catalogue: { en: Record<K, string>; ja: Record<K, string> }): Translate<K> {
  return (key, params) => format(catalogue[current][key] ?? catalogue.en[key], params);
}

/**
 * Dates in the current locale (Intl): 2026/12/02 4:05 in Japanese, and in English the month by
 * name, 2 Dec 2026, 04:05 — a day-first 02/12/2026 reads as February to half the English-speaking
 * world, a month-first one as 12 February to the other half.
 */
// A formatter is costly to make (a file panel of 5000 rows spent seconds making one per row): one per locale and options.
const dateFormats = new Map<string, Intl.DateTimeFormat>();

export function formatDateTime(epochMs: number, opts: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }): string {
  const locale = current === 'ja' ? 'ja-JP' : 'en-GB';
  const key = `${locale} ${JSON.stringify(opts)}`;
  let f = dateFormats.get(key);
  if (!f) dateFormats.set(key, (f = new Intl.DateTimeFormat(locale, opts)));
  return f.format(epochMs);
}
