import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLocale } from '../../../../../renderer/i18n/index.js';
import { stopWords } from '../../../../../renderer/features/bench/runProgress.js';

// What a run's row says when the engine that ran it stopped and the new one found nothing to
// re-attach to: the run lost as it started, or its series stopped between two runs, K of N.

const short = { after: 2, of: 3, upTo: false };

test('English: the lost run and its series; a series stopped between two runs; until stable', () => {
  setLocale('en');
  assert.deepEqual(stopWords({ lost: true, run: 3, short }), {
    text: 'lost before its first result was saved: the engine stopped while this run was starting, so it never ran on the instance. Run it again.',
    note: 'The series stopped after 2 of 3 runs. Run it again for the rest; the saved runs stay.',
  });
  assert.deepEqual(stopWords({ lost: true, run: null, short: null }), {
    text: 'lost before its first result was saved: the engine stopped while this run was starting, so it never ran on the instance. Run it again.',
  });
  assert.deepEqual(stopWords({ lost: false, run: null, short }), {
    note: 'The series stopped after 2 of 3 runs: the engine stopped before run 3 started on the instance. Run it again for the rest; the saved runs stay.',
  });
  assert.match(
    stopWords({ lost: false, run: null, short: { after: 4, of: 10, upTo: true } }).note!,
    /^The series stopped after 4 runs \(of up to 10, until stable\): .* run 5 /,
  );
});

test('Japanese: the same, in Japanese', () => {
  setLocale('ja');
  try {
    assert.deepEqual(stopWords({ lost: true, run: 3, short }), {
      text: '最初の結果を保存する前に失われました。この実行の開始中にエンジンが停止したため、インスタンスでは実行されていません。もう一度実行してください。',
      note: 'シリーズは 3 回中 2 回で止まりました。残りはもう一度実行してください（保存済みの実行はそのまま残ります）。',
    });
    assert.deepEqual(stopWords({ lost: false, run: null, short }), {
      note: 'シリーズは 3 回中 2 回で止まりました。3 回目がインスタンスで始まる前にエンジンが停止したためです。残りはもう一度実行してください（保存済みの実行はそのまま残ります）。',
    });
    assert.match(
      stopWords({ lost: false, run: null, short: { after: 4, of: 10, upTo: true } }).note!,
      /^シリーズは 4 回（安定するまで最多 10 回のうち）で止まりました。5 回目/,
    );
  } finally {
    setLocale('en');
  }
});
