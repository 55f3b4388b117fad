import { defineMessages } from '../i18n/index.js';

// Words of the browser-mode connection (transport.ts): shown in the app's banner when the
// backend cannot be reached.

export const t = defineMessages({
  en: {
    closed: 'The TagSSH backend closed the connection{reason}.',
    noSession:
      'This page has no access to TagSSH: a link from `tagssh web` works once, in one tab. Open a fresh link (press Enter in the terminal running `tagssh web`).',
    workerFailed: 'The connection to the TagSSH backend could not start (wsWorker.js failed to load).',
  },
  ja: {
    closed: 'TagSSH のバックエンドとの接続が切れました{reason}。',
    noSession:
      'このページには TagSSH へのアクセス権がありません。`tagssh web` のリンクは 1 回だけ、1 つのタブで使えます。新しいリンクを開いてください（`tagssh web` を実行中の端末で Enter を押すと表示されます）。',
    workerFailed: 'TagSSH のバックエンドへの接続を開始できませんでした（wsWorker.js の読み込みに失敗）。',
  },
});
