import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Instance } from '../../../../../src/common/model/instance.js';
import { instanceOf } from '../../../../support/instance.js';
import { addressOf, arrange, linesOf, matches, windowOf } from '../../../../../renderer/features/instances/model.js';

const inst = (over: Partial<Instance>): Instance => instanceOf({ region: 'us-east-1', az: 'us-east-1a', ...over });

test('filter matches names, ids, IPs and tags, every word, case-insensitively', () => {
  const i = inst({ name: 'Web Ünïcode "1"', id: 'i-abc', publicIp: '127.0.0.2', tags: { env: 'Prod', team: 'core' } });
  for (const q of ['web', 'ünïcode', 'I-ABC', '127.0.0.2', 'prod', 'env', 'web prod', '"1"']) assert.equal(matches(i, q), true, q);
  for (const q of ['db', 'web staging', '10.9']) assert.equal(matches(i, q), false, q);
});

test('sort and group', () => {
  const list = [
    inst({ id: 'i-1', name: 'b', state: 'stopped', region: 'eu-west-1' }),
    inst({ id: 'i-2', name: 'a', state: 'running' }),
    inst({ id: 'i-3', name: null, state: 'pending' }),
  ];
  assert.deepEqual(
    arrange(list, '', 'name', 'none')[0]!.items.map((i) => i.id),
    ['i-2', 'i-1', 'i-3'],
  );
  assert.deepEqual(
    arrange(list, '', 'state', 'none')[0]!.items.map((i) => i.id),
    ['i-2', 'i-3', 'i-1'],
  );
  assert.deepEqual(
    arrange(list, '', 'name', 'region').map((g) => g.title),
    ['eu-west-1', 'us-east-1'],
  );
  assert.deepEqual(
    arrange(list, '', 'name', 'state').map((g) => g.title),
    ['running', 'pending', 'stopped'],
  );
});

test('address: EIP marked, private as fallback', () => {
  assert.deepEqual(addressOf(inst({ publicIp: '1.2.3.4', isElasticIp: true })), { text: '1.2.3.4', eip: true, kind: 'public' });
  assert.deepEqual(addressOf(inst({})), { text: '10.0.0.1', eip: false, kind: 'private' });
});

test('the filter box takes key=value the way rows show tags', () => {
  const i = inst({ tags: { env: 'prod', team: 'web' } });
  assert.equal(matches(i, 'env=prod'), true);
  assert.equal(matches(i, 'env=prod team=web'), true);
  assert.equal(matches(i, 'env=staging'), false);
});

test('lines: group headings then rows, instance indexes count rows only', () => {
  const list = [inst({ id: 'i-1', name: 'a', region: 'eu-west-1' }), inst({ id: 'i-2', name: 'b' }), inst({ id: 'i-3', name: 'c' })];
  const lines = linesOf(arrange(list, '', 'name', 'region'));
  assert.deepEqual(
    lines.map((l) => (l.kind === 'group' ? `# ${l.title} ${l.count}` : `${l.index} ${l.instance.id}`)),
    ['# eu-west-1 1', '0 i-1', '# us-east-1 2', '1 i-2', '2 i-3'],
  );
  assert.deepEqual(linesOf(arrange(list, 'zzz', 'name', 'region')), []);
});

test('window: the visible lines plus overscan, clamped to the list', () => {
  assert.deepEqual(windowOf(5000, 0, 480, 48, 8), { start: 0, end: 19 });
  assert.deepEqual(windowOf(5000, 48 * 100, 480, 48, 8), { start: 92, end: 119 });
  assert.deepEqual(windowOf(5000, 48 * 4995, 480, 48, 8), { start: 4987, end: 5000 });
  assert.deepEqual(windowOf(3, -20, 0, 48, 8), { start: 0, end: 3 });
});
