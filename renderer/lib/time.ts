import { getLocale } from '../i18n/index.js';

// "5 s ago" style ages for the list header, in the app's language.

const UNITS = {
  en: { s: '{n} s ago', min: '{n} min ago', h: '{n} h ago', d: '{n} d ago' },
  ja: { s: '{n} 秒前', min: '{n} 分前', h: '{n} 時間前', d: '{n} 日前' },
} as const;

export function ago(thenMs: number, nowMs = Date.now(), locale = getLocale()): string {
  const u = UNITS[locale];
  const say = (unit: keyof typeof u, n: number) => u[unit].replace('{n}', String(n));
  const s = Math.max(0, Math.round((nowMs - thenMs) / 1000));
  if (s < 60) return say('s', s);
  const m = Math.floor(s / 60);
  if (m < 60) return say('min', m);
  const h = Math.floor(m / 60);
  if (h < 48) return say('h', h);
  return say('d', Math.floor(h / 24));
}
