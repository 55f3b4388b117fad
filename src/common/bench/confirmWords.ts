import type { DocLang } from './words.js';
import { fillTemplate } from '../fillTemplate.js';

// What a benchmark asks the person to confirm, worded once for every face. A preset says which
// sentence and with what values; the CLI prints the English one, the app the one in its language
// (a sentence built in English inside the engine could not be translated afterwards).

const en = {
  setPerformance: 'Sets the performance governor on every CPU with sudo.',
  setGovernor: 'Sets the {governor} governor on every CPU with sudo.',
  ddWrite: 'Writes {mib} MiB to {dir}/tagssh-scratch-…/ddtest (removed afterwards).',
  createFiles: 'Creates {count} empty files under {dir}/tagssh-scratch-… (removed afterwards).',
  fioWrite: 'Writes {jobs} × {size} of test files under {dir}/tagssh-scratch-… (removed afterwards).',
  copyFrom: 'Copies {from} to {to} (removed afterwards).',
  copyGenerated: 'Copies {files} generated files of {size} to {to} (removed afterwards).',
  installBuildTools: 'Installs gcc, make and perl with the package manager (sudo) when they are missing.',
  buildUnixbench: 'Builds UnixBench in a scratch directory under /tmp (removed afterwards).',
  uploadFile: 'Uploads {file} to the instance.',
} as const;

type ConfirmWordId = keyof typeof en;

const ja: Record<ConfirmWordId, string> = {
  setPerformance: 'すべての CPU の governor を sudo で performance に設定します。',
  setGovernor: 'すべての CPU の governor を sudo で {governor} に設定します。',
  ddWrite: '{dir}/tagssh-scratch-…/ddtest に {mib} MiB を書き込みます（終了後に削除）。',
  createFiles: '{dir}/tagssh-scratch-… に空のファイルを {count} 個作ります（終了後に削除）。',
  fioWrite: '{dir}/tagssh-scratch-… にテスト用ファイル {jobs} × {size} を書き込みます（終了後に削除）。',
  copyFrom: '{from} を {to} へコピーします（終了後に削除）。',
  copyGenerated: '生成した {size} のファイル {files} 個を {to} へコピーします（終了後に削除）。',
  installBuildTools: 'gcc、make、perl がなければパッケージマネージャー（sudo）でインストールします。',
  buildUnixbench: '/tmp の作業ディレクトリで UnixBench をビルドします（終了後に削除）。',
  uploadFile: '{file} をインスタンスへアップロードします。',
};

export const CONFIRM_WORD_IDS = Object.keys(en) as [ConfirmWordId, ...ConfirmWordId[]];

/** Which sentence, with its values (paths, sizes, counts: shown as given, never translated). */
export interface ConfirmSay {
  id: ConfirmWordId;
  values?: Record<string, string | number>;
}

/** The sentence in a language, its {placeholders} filled with the values. */
export function confirmSentence(say: ConfirmSay, lang: DocLang = 'en'): string {
  return fillTemplate((lang === 'ja' ? ja : en)[say.id], say.values);
}
