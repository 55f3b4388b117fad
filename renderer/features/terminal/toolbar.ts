import type { TransportName } from '../../../src/common/model/transport.js';
import { h } from '../../lib/dom.js';
import { FilePanel, type FilePanelDeps } from '../files/panel.js';
import { transportBadge } from '../transport/badge.js';

// A terminal tab's toolbar and what hangs off it: the toggle of the SFTP file panel (the panel
// itself sits beside the screen) and the badge of how the session reached the instance.

export class TabToolbar {
  readonly el: HTMLElement;
  /** The SFTP file panel beside the screen, toggled from the toolbar. */
  readonly files: FilePanel;
  private readonly transport = transportBadge();

  constructor(files: FilePanelDeps) {
    this.files = new FilePanel(files);
    this.el = h('div', { class: 'term-toolbar' }, this.files.toggle, this.transport.el);
  }

  /** A session opened (with how it travels). */
  opened(transport: TransportName | undefined): void {
    this.transport.set(transport);
  }

  /** The tab's session opened, closed or failed: the panel follows. */
  sessionChanged(): void {
    this.files.sessionChanged();
  }

  dispose(): void {
    this.transport.dispose();
    this.files.dispose();
  }
}
