import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAppError } from '../../../../src/common/errors.js';
import { CastRecorder } from '../../../../src/node/log/castRecorder.js';

// Where a recording goes: a name of the Settings' pattern is never refused for being taken (two
// sessions of one instance in one second), a file the person named is never overwritten.

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-cast-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const subject = { instanceId: 'i-0123456789abcdef0', name: 'web', region: 'eu-west-1', user: 'ec2-user' };
const start = new Date('2026-12-01T02:30:00.000Z');
const naming = { pattern: '{name}_{instanceId}_{yyyyMMdd-HHmmss}.log' };

describe('CastRecorder.open', () => {
  it('gives a second recording of the same second a numbered name instead of refusing it', async () => {
    const folder = mkdtempSync(join(dir, 'same-second-'));
    const opts = { cols: 80, rows: 24, start, naming: { ...naming, folder } };
    const first = CastRecorder.open(undefined, subject, opts);
    first.begin();
    await first.close();
    const second = CastRecorder.open(undefined, subject, opts);
    second.begin();
    await second.close();
    assert.notEqual(second.path, first.path);
    assert.match(second.path, /_i-0123456789abcdef0_\d{8}-\d{6}-2\.cast$/);
    assert.equal(readdirSync(folder).length, 2);
    for (const f of readdirSync(folder)) assert.match(readFileSync(join(folder, f), 'utf8'), /^\{"version":2/);
  });

  it('refuses a file the person named that exists, and leaves it as it was', () => {
    const f = join(dir, 'kept.cast');
    writeFileSync(f, 'mine');
    assert.throws(
      () => CastRecorder.open(f, subject, { cols: 80, rows: 24 }),
      (e) => isAppError(e) && /Cannot record into .*kept\.cast: the file exists/.test(e.message),
    );
    assert.equal(readFileSync(f, 'utf8'), 'mine');
  });
});
