import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAppError } from '../../../../src/common/errors.js';
import { SessionLog, defaultLogPath, logHeader } from '../../../../src/node/log/sessionLog.js';

// The session log file: header, plain or raw body, time stamps, modes and bad paths.

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-log-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const subject = {
  instanceId: 'i-0123456789abcdef0',
  name: 'web\x1b]0;pwned\x07 1',
  type: 't3.micro',
  region: 'eu-west-1',
  az: 'eu-west-1a',
  address: '203.0.113.5:22',
  user: 'ec2-user',
};
const start = new Date('2026-12-01T02:30:00.000Z');

// These tests read times in UTC unless one says otherwise (Node follows TZ as it changes).
process.env.TZ = 'UTC';
function withTimeZone(tz: string, f: () => void) {
  process.env.TZ = tz;
  try {
    f();
  } finally {
    process.env.TZ = 'UTC';
  }
}

describe('logHeader', () => {
  it('names instance id, Name, type, region, AZ, address and start time, controls escaped', () => {
    const h = logHeader(subject, start);
    assert.match(h, /^# Instance: i-0123456789abcdef0$/m);
    assert.match(h, /^# Name: web\\x1b\]0;pwned\\x07 1$/m);
    assert.match(h, /^# Type: t3\.micro$/m);
    assert.match(h, /^# Region: eu-west-1$/m);
    assert.match(h, /^# AZ: eu-west-1a$/m);
    assert.match(h, /^# Address: ec2-user@203\.0\.113\.5:22$/m);
    assert.match(h, /^# Started: 2026-12-01T02:30:00\.000\+00:00$/m);
    // In Tokyo the same instant reads as Tokyo's clock, with the offset that makes it exact.
    withTimeZone('Asia/Tokyo', () => assert.match(logHeader(subject, start), /^# Started: 2026-12-01T11:30:00\.000\+09:00$/m));
    withTimeZone('America/St_Johns', () => assert.match(logHeader(subject, start), /^# Started: 2026-11-30T23:00:00\.000-03:30$/m));
    assert.ok(!h.includes('\x1b'));
  });
});

describe('SessionLog', () => {
  it('writes a 0600 plain-text file with time stamps', async () => {
    const file = join(dir, 'plain.log');
    let t = start.getTime();
    const log = SessionLog.open(file, subject, { timestamps: true, now: () => new Date((t += 1000)) });
    log.write(Buffer.from('\x1b[32mok\x1b[0m\r\nsecond'));
    await log.close();
    const text = readFileSync(file, 'utf8');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(text, /^\[2026-12-01T02:30:02\.000\+00:00\] ok$/m);
    assert.match(text, /^\[2026-12-01T02:30:03\.000\+00:00\] second$/m);
    assert.ok(!text.includes('\x1b'));
  });

  it('keeps the bytes as received in raw mode', async () => {
    const file = join(dir, 'raw.log');
    const log = SessionLog.open(file, subject, { raw: true });
    log.write(Buffer.from('\x1b[32mok\x1b[0m\r\n'));
    await log.close();
    assert.ok(readFileSync(file, 'utf8').endsWith('\n\x1b[32mok\x1b[0m\r\n'));
  });

  it('decodes UTF-8 split across chunks', async () => {
    const file = join(dir, 'utf8.log');
    const log = SessionLog.open(file, subject);
    const bytes = Buffer.from('日本語\n');
    log.write(bytes.subarray(0, 2));
    log.write(bytes.subarray(2));
    await log.close();
    assert.match(readFileSync(file, 'utf8'), /^日本語$/m);
  });

  it('tightens an existing file to 0600 and appends to it', async () => {
    const file = join(dir, 'existing.log');
    writeFileSync(file, 'before\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    const log = SessionLog.open(file, subject);
    log.begin();
    await log.close();
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(readFileSync(file, 'utf8').startsWith('before\n# TagSSH session log'));
  });

  it('makes the file and writes the header when the session begins (its start time), not when the log is opened', async () => {
    const file = join(dir, 'begin.log');
    let t = start.getTime();
    const log = SessionLog.open(file, subject, { now: () => new Date((t += 60_000)) });
    assert.ok(!existsSync(file), 'no file before the session opens');
    log.begin();
    log.begin(); // once only
    await log.close();
    const text = readFileSync(file, 'utf8');
    assert.equal(text.match(/# TagSSH session log/g)?.length, 1);
    assert.match(text, /^# Started: 2026-12-01T02:31:00\.000\+00:00$/m);
  });

  it('a log whose session never began leaves no new file, and an existing file as it was', async () => {
    const fresh = join(dir, 'never-began.log');
    await SessionLog.open(fresh, subject).close();
    assert.ok(!existsSync(fresh), 'the new file is removed');

    const kept = join(dir, 'kept.log');
    writeFileSync(kept, 'an earlier session\n');
    chmodSync(kept, 0o644);
    await SessionLog.open(kept, subject).close();
    assert.equal(readFileSync(kept, 'utf8'), 'an earlier session\n');
    assert.equal(statSync(kept).mode & 0o777, 0o644, 'its mode untouched');

    const quiet = join(dir, 'began-quietly.log');
    const log = SessionLog.open(quiet, subject);
    log.begin();
    await log.close();
    assert.match(readFileSync(quiet, 'utf8'), /^# TagSSH session log$/m, 'a session that opened and printed nothing keeps its header');
  });

  it('refuses a path it cannot write, naming it', () => {
    // (A read-only directory would not stop root, who runs the tests: a file in the way does.)
    const notADir = join(dir, 'plain-file');
    writeFileSync(notADir, '');
    for (const file of [join(notADir, 'x.log'), join(dir, 'missing', 'x.log'), dir]) {
      assert.throws(
        () => SessionLog.open(file, subject),
        (e) => isAppError(e) && e.code === 'INVALID_INPUT' && e.message.includes(file),
      );
    }
  });

  it('gives each log with no path a file of its own, even two of one instance in the same second', async () => {
    const saved = process.env.TAGSSH_HOME;
    process.env.TAGSSH_HOME = join(dir, 'same-second');
    try {
      const now = () => start;
      const [a, b] = [SessionLog.open(undefined, subject, { now }), SessionLog.open(undefined, subject, { now })];
      a.write('first tab\n');
      b.write('second tab\n');
      await Promise.all([a.close(), b.close()]);
      assert.notEqual(a.path, b.path);
      assert.match(b.path, /_i-0123456789abcdef0_\d{8}-\d{6}-2\.log$/);
      assert.ok(!readFileSync(a.path, 'utf8').includes('second tab'));
      assert.ok(!readFileSync(b.path, 'utf8').includes('first tab'));
    } finally {
      if (saved === undefined) delete process.env.TAGSSH_HOME;
      else process.env.TAGSSH_HOME = saved;
    }
  });

  it('puts a log with no path under the config dir logs/ (0700), named by the default pattern in local time', () => {
    const saved = process.env.TAGSSH_HOME;
    process.env.TAGSSH_HOME = join(dir, 'home');
    try {
      const p = defaultLogPath(subject, start);
      const local = `${start.getFullYear()}${String(start.getMonth() + 1).padStart(2, '0')}${String(start.getDate()).padStart(2, '0')}-${String(start.getHours()).padStart(2, '0')}${String(start.getMinutes()).padStart(2, '0')}00`;
      assert.equal(p, join(dir, 'home', 'config', 'logs', `web_0_pwned_1_i-0123456789abcdef0_${local}.log`));
      assert.equal(statSync(join(dir, 'home', 'config', 'logs')).mode & 0o777, 0o700);
    } finally {
      if (saved === undefined) delete process.env.TAGSSH_HOME;
      else process.env.TAGSSH_HOME = saved;
    }
  });

  it('follows the Settings folder and pattern, and a second name in the same second gets a number', () => {
    const folder = join(dir, 'chosen', 'logs');
    const p = defaultLogPath(subject, start, { folder, pattern: '{yyyy}-{MM}-{dd}_{region}_{user}.txt' }, 2);
    assert.equal(
      p,
      join(
        folder,
        `${start.getFullYear()}-${String(start.getMonth() + 1).padStart(2, '0')}-${String(start.getDate()).padStart(2, '0')}_eu-west-1_ec2-user-2.txt`,
      ),
    );
    assert.ok(statSync(folder).isDirectory(), 'the folder is made');
  });
});
