import type { MessageBoxSyncOptions } from 'electron';

// The question a page's `beforeunload` asks (renderer/features/terminal/pageSessions.ts): a
// browser words it itself, Electron only cancels the close or reload without a word unless the
// main process asks. The words follow the system language, as the renderer's "Automatic" does
// (the saved language lives in the engine, which a closing window no longer waits for).

const WORDS = {
  en: {
    title: 'TagSSH',
    message: 'Sessions are still open.',
    detail:
      'Reloading keeps them: the reloaded window takes them back. Closing the window ends them within a minute, and programs running in their shells end too (unless they run under nohup, tmux or screen).',
    leave: 'Leave',
    stay: 'Stay',
  },
  ja: {
    title: 'TagSSH',
    message: 'セッションがまだ開いています。',
    detail:
      '再読み込みならセッションは保たれ、再読み込みしたウィンドウに戻ります。ウィンドウを閉じると 1 分以内にセッションは終わり、シェルで動いているプログラムも終わります（nohup、tmux、screen の下で動くものを除く）。',
    leave: '離れる',
    stay: 'とどまる',
  },
} as const;

/** The dialog's options; button 0 leaves, button 1 stays (the default, and what Escape picks). */
export function unloadPromptOptions(locale: string): MessageBoxSyncOptions {
  const w = /^ja\b/i.test(locale) ? WORDS.ja : WORDS.en;
  return { type: 'question', title: w.title, message: w.message, detail: w.detail, buttons: [w.leave, w.stay], defaultId: 1, cancelId: 1, noLink: true };
}

/** Whether the person chose to leave. */
export function choseLeave(answer: number): boolean {
  return answer === 0;
}
