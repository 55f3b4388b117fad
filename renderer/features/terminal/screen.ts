import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import type { Settings } from '../../../src/common/model/settings.js';
import { h } from '../../lib/dom.js';
import { TERMINAL_THEMES } from './themes.js';

// The xterm screen of a terminal tab: the terminal with its add-ons (fit, search, links) in the
// settings' font and theme, kept fitted to its element as the layout changes. Copy on select and
// right-click paste follow Tera Term's defaults (Settings turn them off). A right-click paste is
// handed to xterm as a paste event on its textarea, so it is pasted exactly as Ctrl+Shift+V
// pastes (bracketed where the program asked, and to every tab of a broadcast).

export class TerminalScreen {
  readonly el: HTMLElement = h('div', { class: 'term-screen' });
  readonly term: Terminal;
  readonly search = new SearchAddon();
  private readonly fit = new FitAddon();
  private readonly resizeObserver: ResizeObserver;
  private fitFrame = 0;
  private disposed = false;
  private opts: Settings['terminal'];

  /**
   * `shown` says whether the tab is on screen (a hidden terminal cannot be measured);
   * `clipboardRefused` is told when a right click could not read the clipboard.
   */
  constructor(
    s: Settings['terminal'],
    private readonly shown: () => boolean,
    private readonly clipboardRefused: () => void = () => {},
  ) {
    this.opts = s;
    this.term = new Terminal({
      fontFamily: s.fontFamily,
      fontSize: s.fontSize,
      theme: TERMINAL_THEMES[s.theme],
      cursorBlink: true,
      scrollback: 10_000,
      allowProposedApi: true,
    });
    this.term.loadAddon(this.fit);
    this.term.loadAddon(this.search);
    this.term.loadAddon(new WebLinksAddon((_e, uri) => openExternal(uri)));
    this.resizeObserver = new ResizeObserver(() => this.scheduleFit());
    this.term.onSelectionChange(() => {
      if (this.opts.copyOnSelect && this.term.hasSelection()) void navigator.clipboard?.writeText(this.term.getSelection()).catch(() => {});
    });
    this.el.addEventListener('contextmenu', (e) => {
      if (!this.opts.rightClickPaste) return;
      e.preventDefault();
      void this.pasteClipboard();
    });
  }

  private async pasteClipboard(): Promise<void> {
    let text: string;
    try {
      text = await navigator.clipboard.readText();
    } catch {
      this.clipboardRefused();
      return;
    }
    const area = this.term.textarea;
    if (!text || !area || this.disposed) return;
    const data = new DataTransfer();
    data.setData('text/plain', text);
    area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }

  /** Puts the terminal into its element (which must be in the tab by then). */
  open(): void {
    this.term.open(this.el);
    this.resizeObserver.observe(this.el);
  }

  applySettings(s: Settings['terminal']): void {
    this.opts = s;
    this.term.options.fontFamily = s.fontFamily;
    this.term.options.fontSize = s.fontSize;
    this.term.options.theme = TERMINAL_THEMES[s.theme];
    this.scheduleFit();
  }

  /** Scrollback and screen as plain text, one line per terminal row (wrapped rows joined). */
  text(): string {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buf.length; i++) {
      const line = buf.getLine(i);
      if (!line) continue;
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n') + '\n';
  }

  scheduleFit(): void {
    if (this.fitFrame || this.disposed) return;
    this.fitFrame = requestAnimationFrame(() => {
      this.fitFrame = 0;
      this.fitNow();
    });
  }

  fitNow(): void {
    if (this.disposed || !this.shown()) return;
    try {
      this.fit.fit();
    } catch {
      // not measurable yet (hidden); the next activation fits
    }
  }

  dispose(): void {
    this.disposed = true;
    this.resizeObserver.disconnect();
    this.term.dispose();
  }
}

/** Only parsed http(s) links leave the app; in Electron the main process re-checks (https only). */
function openExternal(uri: string): void {
  try {
    const u = new URL(uri);
    if (u.protocol === 'https:' || u.protocol === 'http:') window.open(u.href, '_blank', 'noopener,noreferrer');
  } catch {
    // not a URL
  }
}
