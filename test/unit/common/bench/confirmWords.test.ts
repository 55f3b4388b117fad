import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIRM_WORD_IDS, confirmSentence } from '../../../../src/common/bench/confirmWords.js';
import { PRESETS } from '../../../../src/common/bench/index.js';

// The sentences a run asks to confirm, shared by the CLI (English) and the app (its language).

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('confirmation sentences', () => {
  it('each has English and Japanese with the same placeholders, and the Japanese is Japanese', () => {
    for (const id of CONFIRM_WORD_IDS) {
      const en = confirmSentence({ id });
      const ja = confirmSentence({ id }, 'ja');
      assert.deepEqual(placeholders(ja), placeholders(en), id);
      assert.match(ja, /[\u3040-\u30ff\u4e00-\u9fff]/, `${id}: ${ja}`);
      assert.doesNotMatch(ja, /\b(Writes|Copies|Creates|Installs|Builds|Uploads|Sets)\b/, `${id}: no English verb left in ${ja}`);
    }
  });

  it('fills every placeholder from the values, leaving paths and sizes as given', () => {
    const say = { id: 'fioWrite' as const, values: { jobs: 4, size: '1G', dir: "/mnt/it's" } };
    assert.equal(confirmSentence(say), "Writes 4 × 1G of test files under /mnt/it's/tagssh-scratch-… (removed afterwards).");
    assert.equal(confirmSentence(say, 'ja'), "/mnt/it's/tagssh-scratch-… にテスト用ファイル 4 × 1G を書き込みます（終了後に削除）。");
  });

  it('every preset that asks, with its default parameters, words each question in both languages with nothing left unfilled', () => {
    let asked = 0;
    for (const preset of Object.values(PRESETS)) {
      for (const c of preset.bind({}).confirmations()) {
        asked++;
        assert.doesNotMatch(c.reason, /\{\w+\}/, `${preset.id}: ${c.reason}`);
        assert.doesNotMatch(confirmSentence(c.say, 'ja'), /\{\w+\}/, preset.id);
        assert.equal(c.reason, confirmSentence(c.say));
      }
    }
    assert.ok(asked >= 5, `presets asked ${asked} questions`);
  });
});
