import type { TerminalTab } from '../features/terminal/terminalTab.js';

// Read-only hooks on `window` that the end-to-end tests and the benchmarks read the terminals by.

declare global {
  interface Window {
    /** Read-only diagnostics for tests and benchmarks. */
    tagsshDebug?: {
      terminals(): Array<{ title: string; state: string; painted: number; received: number; cols: number; rows: number }>;
      /** Writes `chars` of "y\r\n" straight into the active terminal's xterm; resolves with the ms it took (benchmark baseline). */
      writeDirect(chars: number): Promise<number>;
    };
  }
}

export function installDebugHooks(terminals: () => Iterable<TerminalTab>, activeTerminal: () => TerminalTab | undefined): void {
  window.tagsshDebug = {
    terminals: () =>
      [...terminals()].map((t) => ({
        title: t.el.getAttribute('aria-label') ?? '',
        state: t.el.dataset.state ?? '',
        painted: t.painted,
        received: t.received,
        cols: t.term.cols,
        rows: t.term.rows,
      })),
    writeDirect(chars) {
      const term = activeTerminal()?.term;
      if (!term) return Promise.reject(new Error('no active terminal'));
      const chunk = 'y\r\n'.repeat(64 * 1024);
      const t0 = performance.now();
      // Fed the way xterm asks for (it discards past 50 MB queued): a few chunks in flight.
      return new Promise((resolve) => {
        let left = chars;
        let inFlight = 0;
        const pump = () => {
          while (left > 0 && inFlight < 4) {
            const part = left >= chunk.length ? chunk : chunk.slice(0, left);
            left -= part.length;
            inFlight++;
            term.write(part, () => {
              inFlight--;
              if (left > 0) pump();
              else if (inFlight === 0) resolve(performance.now() - t0);
            });
          }
        };
        pump();
      });
    },
  };
}
