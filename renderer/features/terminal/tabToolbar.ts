import type { TransportName } from '../../../src/common/model/transport.js';
import { h } from '../../lib/dom.js';
import { FilePanel, type FilePanelDeps } from '../files/panel.js';
import { transportBadge } from '../transport/badge.js';
import { loginBadge } from './loginBadge.js';
import type { UserSource } from '../../../src/common/login.js';
import type { Charset } from '../../../src/common/charset.js';
import { charsetMenu } from './charsetMenu.js';

// A terminal tab's toolbar and what hangs off it: the toggle of the SFTP file panel (the panel
// itself sits beside the screen), the badge of how the session reached the instance, and the
// session's character set.

export class TabToolbar {
  readonly el: HTMLElement;
  /** The SFTP file panel beside the screen, toggled from the toolbar. */
  readonly files: FilePanel;
  private readonly transport = transportBadge();
  private readonly login = loginBadge();
  private readonly charsetMenu;

  constructor(files: FilePanelDeps, charsetChanged: (charset: Charset) => void) {
    this.files = new FilePanel(files);
    this.charsetMenu = charsetMenu(charsetChanged);
    this.el = h('div', { class: 'term-toolbar' }, this.charsetMenu.el, this.files.toggle, this.transport.el, this.login.el);
  }

  /** The character set chosen for this tab (sent with every open). */
  get charset(): Charset {
    return this.charsetMenu.value;
  }

  /** The set a re-attached session already speaks. */
  setCharset(charset: Charset): void {
    this.charsetMenu.set(charset);
  }

  /** A session opened (with how it travels, and who it logged in as and why). */
  opened(transport: TransportName | undefined, login?: { user: string; source?: UserSource }): void {
    this.transport.set(transport);
    this.login.set(login);
  }

  /** The tab's session opened, closed or failed: the panel follows. */
  sessionChanged(): void {
    this.files.sessionChanged();
  }

  dispose(): void {
    this.charsetMenu.dispose();
    this.transport.dispose();
    this.login.dispose();
    this.files.dispose();
  }
}
