import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fieldNames, findKeyFile } from '../../../../src/node/import/plan.js';

// Pieces of the import plan: finding a key file a macro names (written on Windows) on this
// machine, and which Tera Term known_hosts host fields name an address as TTSSH would match them.

const home = mkdtempSync(join(tmpdir(), 'tagssh-plan-'));
after(() => rmSync(home, { recursive: true, force: true }));

test('a key file: as written when it is a path here; else the same file name in ~/.ssh, then in the imported folders; never a guess', () => {
  mkdirSync(join(home, '.ssh'));
  mkdirSync(join(home, 'macros'));
  writeFileSync(join(home, '.ssh', 'web.pem'), 'k');
  writeFileSync(join(home, 'macros', 'deploy.pem'), 'k');
  writeFileSync(join(home, 'here.pem'), 'k');
  const dirs = [join(home, 'macros')];
  assert.equal(findKeyFile('C:\\Users\\taro\\.ssh\\web.pem', dirs, home), join(home, '.ssh', 'web.pem'));
  assert.equal(findKeyFile('{USERPROFILE}\\.ssh\\web.pem', dirs, home), join(home, '.ssh', 'web.pem'));
  assert.equal(findKeyFile('~/.ssh/web.pem', dirs, home), join(home, '.ssh', 'web.pem'));
  assert.equal(findKeyFile('D:\\keys\\deploy.pem', dirs, home), join(home, 'macros', 'deploy.pem'));
  assert.equal(findKeyFile(join(home, 'here.pem'), dirs, home), join(home, 'here.pem'));
  assert.equal(findKeyFile('C:\\keys\\missing.pem', dirs, home), null);
  assert.equal(findKeyFile('C:\\keys\\', dirs, home), null);
});

test('known_hosts host fields: lists, [host]:port, patterns, negations, hashed names', () => {
  assert.equal(fieldNames('10.0.0.1,web', '10.0.0.1'), true);
  assert.equal(fieldNames('[10.0.0.1]:2222', '[10.0.0.1]:2222'), true);
  assert.equal(fieldNames('[10.0.0.1]:2222', '10.0.0.1'), false, 'another port is another host');
  assert.equal(fieldNames('10.0.0.*', '10.0.0.9'), true);
  assert.equal(fieldNames('10.0.0.*,!10.0.0.9', '10.0.0.9'), false);
  assert.equal(fieldNames('EC2-HOST.example', 'ec2-host.example'), true, 'names compare without case');
  const salt = randomBytes(20);
  const hashed = `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update('203.0.113.5').digest('base64')}`;
  assert.equal(fieldNames(hashed, '203.0.113.5'), true);
  assert.equal(fieldNames(hashed, '203.0.113.6'), false);
});
