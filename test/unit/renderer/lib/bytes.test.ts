import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytes } from '../../../../renderer/lib/bytes.js';

// The one byte formatter the renderer's views share (file panel, transfers, tunnels, logs, bench).

test('bytes, whole KiB, then one decimal', () => {
  const cases: Array<[number, string]> = [
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [1536, '2 KiB'],
    [12 * 1024 + 100, '12 KiB'],
    [3 * 1024 * 1024, '3.0 MiB'],
    [1024 * 1024 - 100, '1.0 MiB'],
    [1.25 * 1024 * 1024, '1.3 MiB'],
    [4 * 1024 ** 3, '4.0 GiB'],
    [2 * 1024 ** 4, '2.0 TiB'],
    [2048 * 1024 ** 4, '2048.0 TiB'],
  ];
  for (const [n, text] of cases) assert.equal(formatBytes(n), text, String(n));
});
