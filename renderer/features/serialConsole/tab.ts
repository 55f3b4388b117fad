import type { SessionInfo } from '../../../src/common/contract.js';
import { LoginRefusedWatch } from '../../../src/common/serialConsole/rules.js';
import { escapeControls } from '../../../src/common/safeText.js';
import { h } from '../../lib/dom.js';
import { statusButton, type StatusBar } from '../terminal/statusBar.js';
import { t } from './messages.js';

// What a serial console tab adds to a terminal tab: the lines it opens with (which endpoint,
// which host key and against what it was checked — loudly when a test-only file replaced AWS's
// table), and the hint a refused login needs (a user with a password), shown above the screen.

type SerialInfo = NonNullable<SessionInfo['serialConsole']>;

/** The opening lines, escaped, written before the console's own output. */
export function serialOpenedLines(label: string, info: SerialInfo): string {
  const lines: string[] = [];
  if (info.overriddenBy)
    lines.push(`\x1b[1;31m${escapeControls(t('openedOverride', { fingerprint: info.fingerprint, endpoint: info.endpoint, file: info.overriddenBy }))}\x1b[0m`);
  else lines.push(`\x1b[2m${escapeControls(t('opened', { label, endpoint: info.endpoint, fingerprint: info.fingerprint, region: info.region }))}\x1b[0m`);
  lines.push(`\x1b[2m${escapeControls(t('loginHint'))}\x1b[0m`);
  return `${lines.join('\r\n')}\r\n`;
}

/** Watches the console's output; on "Login incorrect" shows what to do in the tab's status bar. */
export function loginRefusedWatcher(status: StatusBar): (text: string) => void {
  const watch = new LoginRefusedWatch();
  return (text) => {
    if (!watch.feed(text)) return;
    status.view(
      'warn',
      () => h('div', { 'data-testid': 'serial-login-refused' }, h('strong', { text: t('refused') }), h('p', { class: 'hint', text: t('refusedHint') })),
      () => [statusButton(t('dismiss'), '', () => status.hide())],
    );
  };
}

/** A serial console tab's label: the instance's, marked. */
export function serialTabLabel(label: string): string {
  return t('tabLabel', { label });
}
