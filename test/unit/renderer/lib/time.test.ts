import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ago } from '../../../../renderer/lib/time.js';
import { formatDateTime, setLocale } from '../../../../renderer/i18n/index.js';

// "updated … ago" in the list header, in the app's language.

test('ages in English and Japanese, from seconds to days', () => {
  const now = 10_000_000;
  const cases: Array<[number, string, string]> = [
    [5_000, '5 s ago', '5 秒前'],
    [125_000, '2 min ago', '2 分前'],
    [3 * 3600_000, '3 h ago', '3 時間前'],
    [3 * 86_400_000, '3 d ago', '3 日前'],
  ];
  for (const [age, en, ja] of cases) {
    assert.equal(ago(now - age, now, 'en'), en);
    assert.equal(ago(now - age, now, 'ja'), ja);
  }
  assert.equal(ago(now + 5_000, now, 'en'), '0 s ago', 'a clock a little ahead is "now", never negative');
});

test('dates: English names the month (never 02/12/2026), Japanese reads year/month/day', () => {
  const at = new Date(2026, 11, 2, 4, 5).getTime(); // 2 December 2026, 04:05 local
  setLocale('en');
  assert.equal(formatDateTime(at), '2 Dec 2026, 04:05');
  setLocale('ja');
  assert.equal(formatDateTime(at), '2026/12/02 4:05');
  setLocale('en');
});
