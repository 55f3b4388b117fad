import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLocale } from '../../../../renderer/i18n/index.js';
import { instanceStateWord } from '../../../../renderer/i18n/instanceState.js';

// One wording of an instance's EC2 state for every screen that shows it (the list, an ambiguous
// Name's candidates): the AWS console's words in Japanese, EC2's own name for a state it adds later.

test('every EC2 state in English and in Japanese; an unknown state as EC2 names it', () => {
  setLocale('en');
  assert.equal(instanceStateWord('shutting-down'), 'shutting down');
  assert.equal(instanceStateWord('running'), 'running');
  setLocale('ja');
  assert.deepEqual(['pending', 'running', 'stopping', 'stopped', 'shutting-down', 'terminated'].map(instanceStateWord), [
    '保留中',
    '実行中',
    '停止中',
    '停止済み',
    'シャットダウン中',
    '終了済み',
  ]);
  assert.equal(instanceStateWord('hibernating'), 'hibernating');
  setLocale('en');
});
