import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_TERMINAL_FONT, SettingsSchema, defaultSettings } from '../../../../src/common/model/settings.js';

// The terminal's font stack names a CJK-capable fallback, so Japanese names never show as boxes.

test('the default terminal font names a Japanese-capable monospace for each platform', () => {
  const font = defaultSettings().terminal.fontFamily;
  assert.equal(font, DEFAULT_TERMINAL_FONT);
  for (const family of ['"Noto Sans Mono CJK JP"', '"MS Gothic"', '"Hiragino Sans"']) assert.ok(font.includes(family), family);
  assert.match(font, /monospace$/);
});

test('a settings file saved with the old default gets the new one; a font the user chose is kept', () => {
  const old = SettingsSchema.parse({ terminal: { fontFamily: '"DejaVu Sans Mono", Menlo, Consolas, monospace' } });
  assert.equal(old.terminal.fontFamily, DEFAULT_TERMINAL_FONT);
  const own = SettingsSchema.parse({ terminal: { fontFamily: 'Cica, monospace' } });
  assert.equal(own.terminal.fontFamily, 'Cica, monospace');
  assert.equal(SettingsSchema.parse({ language: 'ja' }).language, 'ja');
  assert.equal(SettingsSchema.safeParse({ language: 'fr' }).success, false);
});
