import type { Terminal } from '@xterm/xterm';

// The terminal's own shortcuts, Ctrl+Shift+C/V/F (plain Ctrl+C/V belong to the remote program).
// The handler returns false for a key it took, so xterm does not send it to the session.

export function terminalShortcuts(term: Terminal, openFind: () => void): (e: KeyboardEvent) => boolean {
  return (e) => {
    if (e.type !== 'keydown' || !e.ctrlKey || !e.shiftKey) return true;
    if (e.code === 'KeyC') {
      if (term.hasSelection()) void navigator.clipboard?.writeText(term.getSelection()).catch(() => {});
      return false;
    }
    if (e.code === 'KeyV') {
      // Let the browser's own paste reach xterm's textarea: no clipboard-read permission needed.
      return false;
    }
    if (e.code === 'KeyF') {
      openFind();
      return false;
    }
    return true;
  };
}
