import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseOf, crumbsOf, joinRemote, nameProblem, parentOf, partNameOf } from '../../../../src/common/files/paths.js';
import { FileNameSchema, RemotePathSchema } from '../../../../src/common/files/contract.js';
import { utf8Length } from '../../../../src/common/export/encoding.js';

test('remote paths join, climb and split into breadcrumbs as POSIX paths', () => {
  assert.equal(joinRemote('/', 'etc'), '/etc');
  assert.equal(joinRemote('/home/ec2-user', 'a b'), '/home/ec2-user/a b');
  assert.equal(parentOf('/home/ec2-user'), '/home');
  assert.equal(parentOf('/home'), '/');
  assert.equal(parentOf('/'), '/');
  assert.equal(parentOf('/var/log/'), '/var');
  assert.equal(baseOf('/var/log'), 'log');
  assert.equal(baseOf('/'), '/');
  assert.deepEqual(crumbsOf('/'), [{ name: '/', path: '/' }]);
  assert.deepEqual(crumbsOf('/home/dir\nwith newline'), [
    { name: '/', path: '/' },
    { name: 'home', path: '/home' },
    { name: 'dir\nwith newline', path: '/home/dir\nwith newline' },
  ]);
});

test('a single name: not empty, not . or .., no / or NUL, at most 255 UTF-8 bytes', () => {
  assert.equal(nameProblem('report.txt'), null);
  assert.equal(nameProblem('évil\x1b[31m $(x)'), null, 'odd but legal names are names');
  assert.equal(nameProblem(''), 'empty');
  assert.equal(nameProblem('.'), 'dot');
  assert.equal(nameProblem('..'), 'dot');
  assert.equal(nameProblem('a/b'), 'slash');
  assert.equal(nameProblem('a\0b'), 'nul');
  assert.equal(nameProblem('あ'.repeat(85)), null, '255 bytes');
  assert.equal(nameProblem('あ'.repeat(86)), 'long');
  assert.ok(!FileNameSchema.safeParse('../etc').success);
  assert.ok(FileNameSchema.safeParse('ok name').success);
  assert.ok(!RemotePathSchema.safeParse('relative/path').success);
  assert.ok(!RemotePathSchema.safeParse('/a\0b').success);
  assert.ok(RemotePathSchema.safeParse('/tmp').success);
});

test('an upload’s temp name is hidden, marked, and fits NAME_MAX even for the longest name', () => {
  assert.equal(partNameOf('a.bin', '0123456789abcdef'), '.a.bin.tagssh-part-01234567');
  const long = partNameOf('日'.repeat(85), 'abcdef0123456789');
  assert.ok(utf8Length(long) <= 255, `${utf8Length(long)} bytes`);
  assert.ok(long.endsWith('.tagssh-part-abcdef01'));
  assert.equal(nameProblem(long), null);
});
