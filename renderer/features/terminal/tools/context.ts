import type { Api } from '../../../lib/api.js';
import type { Settings } from '../../../../src/common/model/settings.js';
import type { Instance } from '../../../../src/common/model/instance.js';
import type { LogKind } from '../../../../src/common/log/contract.js';
import { h } from '../../../lib/dom.js';
import { BroadcastRouter } from '../../broadcast/router.js';

// What the terminal tools bar's groups share: the terminal tabs it was handed, which one is
// active, the broadcast router, the instances (for tag choices) and the bar's one-line note.

/** What the tools need from a terminal tab. */
export interface ToolTab {
  readonly el: HTMLElement;
  readonly label: string;
  readonly instanceId: string | null;
  readonly currentSessionId: string | null;
  readonly currentState: string;
  /** Which records the next open keeps from its first byte: those the tab's tools want (set on attach). */
  logOnOpen: () => LogKind[];
  send(data: string): boolean;
  bracketedPaste(): boolean;
  /** The scrollback and screen as plain text. */
  outputText(): string;
}

export interface TerminalToolsDeps {
  api: Api;
  settings(): Settings;
}

export interface ToolEntry {
  id: string;
  tab: ToolTab;
  button: HTMLElement;
  badge: HTMLElement;
}

export class ToolsContext {
  readonly router = new BroadcastRouter();
  readonly entries = new Map<string, ToolEntry>();
  activeId: string | null = null;
  instances: Instance[] = [];
  readonly noteEl = h('span', { class: 'tools-note', 'data-testid': 'tools-note', 'aria-live': 'polite' });

  constructor(readonly deps: TerminalToolsDeps) {}

  /** The active terminal tab's entry, if any. */
  active(): ToolEntry | undefined {
    return this.activeId ? this.entries.get(this.activeId) : undefined;
  }

  note(text: string): void {
    this.noteEl.textContent = text;
  }

  async loadInstances(): Promise<Instance[]> {
    try {
      this.instances = (await this.deps.api.call('instances.list', { refresh: false })).instances;
    } catch {
      // keep what we had: tag choices simply find fewer tabs
    }
    return this.instances;
  }
}
