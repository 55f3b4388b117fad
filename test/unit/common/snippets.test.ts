import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SnippetListSchema, SnippetSchema, findSnippet, snippetKeystrokes, snippetsFor } from '../../../src/common/snippets.js';
import { SettingsSchema } from '../../../src/common/model/settings.js';

// Saved commands: names, text, tag scope, and the keystrokes that type them.

describe('SnippetSchema', () => {
  it('accepts a name of letters, digits, dot, dash, underscore (Japanese too) and a command', () => {
    for (const name of ['df', 'disk-usage', 'logs_tail.v2', '再起動']) assert.equal(SnippetSchema.parse({ name, command: 'df -h' }).name, name);
  });

  it('refuses empty or odd names, empty commands and control characters', () => {
    for (const name of ['', '-x', 'a b', 'x/y', 'a'.repeat(65)]) assert.equal(SnippetSchema.safeParse({ name, command: 'ls' }).success, false, name);
    for (const command of ['', '   ', 'echo \x1b]0;x\x07', 'sleep 1\x03', 'a\rb'])
      assert.equal(SnippetSchema.safeParse({ name: 'x', command }).success, false, JSON.stringify(command));
    assert.equal(SnippetSchema.safeParse({ name: 'x', command: 'a\tb\nc' }).success, true);
  });

  it('refuses two snippets with the same name', () => {
    assert.equal(
      SnippetListSchema.safeParse([
        { name: 'a', command: 'x' },
        { name: 'a', command: 'y' },
      ]).success,
      false,
    );
  });
});

describe('snippetsFor / findSnippet', () => {
  const list = SnippetListSchema.parse([
    { name: 'all', command: 'uptime' },
    { name: 'stg', command: 'tail log', tag: { key: 'env', value: 'staging' } },
  ]);
  it('offers global snippets everywhere and tagged ones only where the tag value matches', () => {
    assert.deepEqual(
      snippetsFor(list, { env: 'staging' }).map((s) => s.name),
      ['all', 'stg'],
    );
    assert.deepEqual(
      snippetsFor(list, { env: 'Staging' }).map((s) => s.name),
      ['all'],
    );
    assert.deepEqual(
      snippetsFor(list, null).map((s) => s.name),
      ['all'],
    );
  });
  it('finds by exact name', () => {
    assert.equal(findSnippet(list, 'stg')?.command, 'tail log');
    assert.equal(findSnippet(list, 'STG'), undefined);
  });
});

describe('snippetKeystrokes', () => {
  it('types each line followed by Enter (CR), trailing blank lines dropped', () => {
    assert.equal(snippetKeystrokes('uptime'), 'uptime\r');
    assert.equal(snippetKeystrokes('cd /tmp\r\nls -l\n\n'), 'cd /tmp\rls -l\r');
  });
});

describe('Settings: snippets and session logs', () => {
  it('default to none and off, and an old settings file still reads', () => {
    const s = SettingsSchema.parse({ language: 'ja' });
    assert.deepEqual(s.snippets, []);
    assert.deepEqual(s.sessionLog, {
      always: false,
      timestamps: false,
      folder: null,
      namePattern: '{name}_{instanceId}_{yyyyMMdd-HHmmss}.log',
      format: 'text',
    });
    // A file written before the folder, pattern and format existed keeps its choices and gets their defaults.
    assert.deepEqual(SettingsSchema.parse({ sessionLog: { always: true, timestamps: true } }).sessionLog, {
      always: true,
      timestamps: true,
      folder: null,
      namePattern: '{name}_{instanceId}_{yyyyMMdd-HHmmss}.log',
      format: 'text',
    });
    assert.throws(() => SettingsSchema.parse({ sessionLog: { namePattern: '../{name}.log' } }), /a file name pattern without a path separator/);
  });
});
