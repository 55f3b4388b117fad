import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillTemplate } from '../../../src/common/fillTemplate.js';

test('placeholders are filled from their own keys; one without a value, or an inherited name, stays as written', () => {
  assert.equal(fillTemplate('{name} has {count} CPUs', { name: 'web-1', count: 4 }), 'web-1 has 4 CPUs');
  assert.equal(fillTemplate('{name} at {address}', { name: 'db' }), 'db at {address}');
  assert.equal(fillTemplate('{constructor} {toString}', {}), '{constructor} {toString}');
  assert.equal(fillTemplate('{a}', { a: '{b}', b: 'x' }), '{b}', 'a value is text, not filled again');
  assert.equal(fillTemplate('no placeholders'), 'no placeholders');
});
