import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SavedTunnel } from '../../../../../../src/common/tunnels/contract.js';
import { chooseSaved, matchSaved, savedFor, savedTable } from '../../../../../../src/node/cli/commands/tunnel/savedChoice.js';

// Which saved tunnels `tagssh tunnel NAME [--saved …]` picks, by the instance's tags as given, and
// how --list shows them. The CLI runs against moto and sshd in
// test/integration/node/tunnels/savedCli.test.ts; here are the cases a lab cannot set up cheaply
// (ids sharing a start).

const web = { id: 'i-0123456789abcdef0', region: 'us-east-1', name: 'web', tags: { Name: 'web', env: 'staging' } };
const own: SavedTunnel = { id: 'abcd1111-own', instanceId: web.id, region: 'us-east-1', label: 'web', kind: 'local', port: 8080, host: 'db', hostPort: 5432 };
const sameIdOtherRegion: SavedTunnel = { ...own, id: 'abcd2222-eu', region: 'eu-west-1' };
const staging: SavedTunnel = { id: 'ef990000-stg', tag: { key: 'env', value: 'staging' }, label: 'env=staging', kind: 'dynamic', port: 1080 };
const prod: SavedTunnel = { id: 'ef991111-prd', tag: { key: 'env', value: 'production' }, label: 'env=production', kind: 'dynamic', port: 0 };
const list = [own, sameIdOtherRegion, staging, prod];

test('applies: its own (id and region) and its tags’ tunnels; a tag value must match exactly', () => {
  assert.deepEqual(savedFor(list, web), [own, staging]);
  assert.deepEqual(savedFor(list, { ...web, tags: { env: 'Staging' } }), [own]);
});

test('--saved matches an id, else a label, else the start of an id (4 characters at least, one match)', () => {
  assert.deepEqual(matchSaved(list, 'abcd1111-own'), [own]);
  assert.deepEqual(matchSaved(list, 'web'), [own, sameIdOtherRegion]);
  assert.deepEqual(matchSaved(list, 'ef990'), [staging]);
  assert.deepEqual(matchSaved(list, 'ef9'), [], 'too short to be an id');
  assert.throws(
    () => matchSaved(list, 'abcd'),
    (e: Error & { code?: string }) =>
      e.code === 'AMBIGUOUS' &&
      /^--saved abcd is the start of 2 saved tunnel ids: abcd1111-own \(web \(i-0123456789abcdef0 us-east-1\), -L 8080:db:5432\); abcd2222-eu /.test(e.message),
  );
});

test('--saved picks among what applies, each once, in file order; one for another tag is refused naming it', () => {
  assert.deepEqual(chooseSaved(list, web, ['env=staging', 'web', 'abcd1111-own']), [own, staging], 'the eu-west-1 "web" does not apply');
  assert.deepEqual(chooseSaved(list, web, undefined), [own, staging]);
  assert.throws(
    () => chooseSaved(list, web, ['env=production']),
    (e: Error & { code?: string; hint?: string }) =>
      e.code === 'INVALID_INPUT' &&
      e.message === '--saved env=production is not for web (i-0123456789abcdef0): ef991111-prd (tag env=production, -D 0).' &&
      e.hint === 'Saved for it: abcd1111-own (web (i-0123456789abcdef0 us-east-1), -L 8080:db:5432); ef990000-stg (tag env=staging, -D 1080).',
  );
});

test('--list quotes and escapes labels, tags and hosts from the file', () => {
  const odd: SavedTunnel = { ...own, id: 'odd0001', label: 'w\u001b[2Jeb\u202e', host: 'db\r\nx' };
  const text = savedTable([odd, { ...prod, tag: { key: 'team', value: 'a\u0007' } }]);
  assert.equal(
    text,
    [
      'ID            FOR                                                   FORWARD',
      'odd0001       "w\\u001b[2Jeb\\u202e" (i-0123456789abcdef0 us-east-1)  -L "8080:db\\r\\nx:5432"',
      'ef991111-prd  tag "team=a\\u0007"                                    -D 0',
    ].join('\n') + '\n',
  );
});
