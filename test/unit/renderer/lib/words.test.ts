import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Disposables } from '../../../../renderer/lib/disposables.js';
import { bindAttr, bindText, onWords, statusLine } from '../../../../renderer/lib/words.js';
import { defineMessages, setLocale } from '../../../../renderer/i18n/index.js';

// Text bound to the app's words says itself again after a language switch, and stops with its view.

const t = defineMessages({
  en: { save: 'Save', saved: 'Saved {n}.', hint: 'No instances' },
  ja: { save: '保存', saved: '{n} 件保存しました。', hint: 'インスタンスがありません' },
});

test('bound text and attributes follow the language until the store is disposed', (ctx) => {
  ctx.after(() => setLocale('en'));
  setLocale('en');
  const store = new Disposables();
  const label = { textContent: '' as string | null };
  const attrs = new Map<string, string>();
  bindText(store, label, () => t('save'));
  bindAttr(store, { setAttribute: (k: string, v: string) => void attrs.set(k, v) }, 'title', () => t('hint'));
  assert.equal(label.textContent, 'Save');
  assert.equal(attrs.get('title'), 'No instances');
  setLocale('ja');
  assert.equal(label.textContent, '保存');
  assert.equal(attrs.get('title'), 'インスタンスがありません');
  store.dispose();
  setLocale('en');
  assert.equal(label.textContent, '保存', 'a disposed view is no longer repainted');
});

test('a status line says its last words again in the new language, and nothing once emptied', (ctx) => {
  ctx.after(() => setLocale('en'));
  setLocale('en');
  const store = new Disposables();
  const line = { textContent: '' as string | null };
  const say = statusLine(store, line);
  assert.equal(line.textContent, '');
  say(() => t('saved', { n: 2 }));
  assert.equal(line.textContent, 'Saved 2.');
  setLocale('ja');
  assert.equal(line.textContent, '2 件保存しました。');
  say(null);
  setLocale('en');
  assert.equal(line.textContent, '');
  store.dispose();
});

test('onWords paints now and after each switch', (ctx) => {
  ctx.after(() => setLocale('en'));
  setLocale('en');
  const store = new Disposables();
  const painted: string[] = [];
  onWords(store, () => painted.push(t('save')));
  setLocale('ja');
  setLocale('ja');
  assert.deepEqual(painted, ['Save', '保存'], 'once now, once per actual switch');
  store.dispose();
});
