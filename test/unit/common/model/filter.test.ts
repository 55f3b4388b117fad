import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/common/model/instance.js';
import { instanceOf } from '../../../support/instance.js';
import { filterInstances, matchesFilter, parseFilter } from '../../../../src/common/model/filter.js';

// The one instance filter behind `tagssh list --filter` and the app's filter box.

const inst = instanceOf;
const m = (i: Instance, q: string) => matchesFilter(i, parseFilter(q));

test('key=value, as the list shows tags, matches the tag (key exact, value contained, any case)', () => {
  const i = inst({ tags: { Name: 'web-1', env: 'Prod', team: 'core', 'tagssh:user': 'ubuntu' } });
  for (const q of ['env=prod', 'ENV=Prod', 'env=pro', 'env=', 'team=core env=prod', 'Name=web', 'tagssh:user=ubuntu']) assert.equal(m(i, q), true, q);
  for (const q of ['env=staging', 'nv=prod', 'team=prod', 'owner=', 'env=prod team=web']) assert.equal(m(i, q), false, q);
});

test('other words match name, id, addresses, type, zone, region, state and tag keys/values', () => {
  const i = inst({ name: '大阪 Web', id: 'i-abc', publicIp: '127.0.0.2', tags: { env: 'prod' } });
  for (const q of ['大阪', 'web', 'I-ABC', '127.0.0.2', '10.0.0.1', 't3', 'ap-northeast-1a', 'running', 'env', 'prod', '']) assert.equal(m(i, q), true, q);
  for (const q of ['db', '大阪 staging']) assert.equal(m(i, q), false, q);
});

test('filterInstances keeps the order and returns a copy', () => {
  const list = [inst({ id: 'i-1', tags: { env: 'prod' } }), inst({ id: 'i-2', tags: { env: 'dev' } }), inst({ id: 'i-3', tags: { env: 'prod' } })];
  assert.deepEqual(
    filterInstances(list, 'env=prod').map((i) => i.id),
    ['i-1', 'i-3'],
  );
  const all = filterInstances(list, ' ');
  assert.notEqual(all, list);
  assert.equal(all.length, 3);
});
