import type { Envelope } from '../src/common/rpc.js';

// "Show in folder" for the Logs view. The engine (in its own process, without Electron) answers
// logs.reveal with the path of a file in the log folder — it alone checks that the name is one of
// its logs — and `revealed: false`; on the way back to the window the Electron shell shows that
// path in the file manager (shell.showItemInFolder) and says so. Nothing else is touched.

const METHOD = 'logs.reveal';

export interface RevealRelay {
  /** A message from the window (still unvalidated: only its id and method are looked at). */
  fromWindow(msg: unknown): void;
  /** A message to the window: a logs.reveal answer is acted on and marked revealed. */
  toWindow(msg: Envelope): Envelope;
}

export function createRevealRelay(showItemInFolder: (path: string) => void): RevealRelay {
  const pending = new Set<number>();
  return {
    fromWindow(msg) {
      const m = msg as { t?: unknown; id?: unknown; method?: unknown } | null;
      if (m && m.t === 'req' && m.method === METHOD && typeof m.id === 'number') pending.add(m.id);
    },
    toWindow(msg) {
      if (msg.t !== 'res' || msg.id === null || !pending.delete(msg.id) || !msg.ok) return msg;
      const result = msg.result as { path?: unknown } | null;
      if (!result || typeof result.path !== 'string') return msg;
      showItemInFolder(result.path);
      return { ...msg, result: { ...result, revealed: true } };
    },
  };
}
