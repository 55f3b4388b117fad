import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  castHeaderLine,
  castOutputLine,
  castResizeLine,
  castTime,
  outputUntil,
  parseCast,
  ReplayFilter,
  sizeAt,
} from '../../../../src/common/log/asciicast.js';
import { castFileName, logFileName, patternProblem, safeFilePart } from '../../../../src/common/log/fileName.js';
import { checkAsciicastV2 } from '../../../support/asciicastSpec.js';

// The asciicast v2 writer and reader, the replay filter, and session-log file names.

test('what the writer makes passes the spec check; time as asciinema writes it; controls (C0 and C1) \\u-escaped', () => {
  assert.equal(castTime(0), '0.0');
  assert.equal(castTime(1.5), '1.5');
  assert.equal(castTime(2.0000004), '2.0');
  assert.equal(castTime(0.123456789), '0.123457');
  const text =
    castHeaderLine({ version: 2, width: 80, height: 24, timestamp: 1700000000, env: { TERM: 'xterm-256color' }, title: 'web "1"' }) +
    castOutputLine(0.25, '\x1b[31mred\x1b[0m \u009b2J 日本\r\n') +
    castResizeLine(1, 100, 30) +
    castOutputLine(1.5, 'bye');
  const spec = checkAsciicastV2(text);
  assert.deepEqual(spec.problems, []);
  assert.equal(spec.output, '\x1b[31mred\x1b[0m \u009b2J 日本\r\nbye');
  assert.ok(text.includes('\\u009b'), 'a C1 control is escaped so cat cannot drive a terminal');
  const cast = parseCast(text);
  assert.equal(cast.duration, 1.5);
  assert.deepEqual(sizeAt(cast, 0.5), { cols: 80, rows: 24 });
  assert.deepEqual(sizeAt(cast, 1), { cols: 100, rows: 30 });
  assert.equal(outputUntil(cast, 1.2), '\x1b[31mred\x1b[0m \u009b2J 日本\r\n');
});

test('the reader refuses what breaks v2 with the line, and passes over event codes it does not know', () => {
  assert.throws(() => parseCast('not json\n'), /line 1: the first line is not a JSON header/);
  assert.throws(() => parseCast('{"version": 3, "term": {"cols": 80, "rows": 24}}\n'), /line 1: version is 3, not 2/);
  assert.throws(() => parseCast('{"version": 2, "width": 0, "height": 24}\n'), /width and height/);
  assert.throws(() => parseCast('{"version": 2, "width": 80, "height": 24}\n[1, "o"]\n'), /line 2: an event is \[seconds, code, data\]/);
  assert.throws(() => parseCast('{"version": 2, "width": 80, "height": 24}\n[1, "r", "80*24"]\n'), /line 2: a resize is "COLSxROWS"/);
  const c = parseCast('{"version": 2, "width": 80, "height": 24, "idle_time_limit": 2}\n[0.5, "x", "0"]\n[1, "m", "chapter"]\n[2, "o", "ok"]\n\n');
  assert.deepEqual(
    c.events.map((e) => e.code),
    ['m', 'o'],
  );
});

test('the replay filter drops OSC 52/50 and device-control strings, even split across events, and keeps the rest', () => {
  const f = new ReplayFilter();
  const out = [f.push('a\x1b]52;c;cHduZWQ='), f.push('\x07b\x1bP+q'), f.push('544e\x1b\\c\x1b]0;title\x07\x1b['), f.push('31md'), f.end()].join('');
  assert.equal(out, 'abc\x1b]0;title\x07\x1b[31md');
  const g = new ReplayFilter();
  assert.equal(g.push('x\x1b]5') + g.end(), 'x', 'a sequence that never ended is dropped');
  const h = new ReplayFilter();
  assert.equal(h.push('plain \x1b') + h.push('[1mbold'), 'plain \x1b[1mbold');
});

test('file names: fields and local date letters, values made safe, the pattern checked', () => {
  const at = new Date(2026, 2, 1, 9, 5, 7);
  assert.equal(
    logFileName('{name}_{instanceId}_{yyyyMMdd-HHmmss}.log', { name: 'web 1/../x', instanceId: 'i-0123456789abcdef0' }, at),
    'web_1_.._x_i-0123456789abcdef0_20260301-090507.log',
  );
  assert.equal(logFileName('{yyyy}/{MM}.log'.replace('/', '-'), {}, at), '2026-03.log');
  assert.equal(logFileName('{region}-{user}-{type}.txt', { region: null }, at), '-----.txt', 'a missing value is "-"');
  assert.equal(safeFilePart('本番サーバー'), '本番サーバー');
  assert.equal(safeFilePart('..'), '_');
  assert.equal(castFileName('web_1.log'), 'web_1.cast');
  assert.equal(patternProblem('{name}.log'), null);
  assert.equal(patternProblem('{name}/{id}.log'), 'a path separator (the folder is set apart)');
  assert.equal(patternProblem('{nope}.log'), 'an unknown field {nope}');
  assert.equal(patternProblem('{name.log'), 'an unmatched brace');
  assert.equal(patternProblem('a:b.log'), 'a character file systems refuse');
  assert.equal(patternProblem('  '), 'empty');
});
