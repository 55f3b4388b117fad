import { defineMessages } from '../../i18n/index.js';

// The words of the notice shown when the engine process was replaced.

export const t = defineMessages({
  en: {
    restarted: 'TagSSH’s engine stopped and was restarted. Open terminals were disconnected: press Reconnect in each to carry on.',
    restartedReason: 'What happened: {reason}',
    dismiss: 'Dismiss',
  },
  ja: {
    restarted: 'TagSSH のエンジンが停止したため再起動しました。開いていたターミナルは切断されています。各タブの「再接続」で続けてください。',
    restartedReason: '原因: {reason}',
    dismiss: '閉じる',
  },
});
