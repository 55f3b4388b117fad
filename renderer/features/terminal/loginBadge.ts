import type { UserSource } from '../../../src/common/login.js';
import { onLocaleChange } from '../../i18n/index.js';
import { h } from '../../lib/dom.js';
import { t, type TerminalWord } from './messages.js';

// The terminal tab's note of who the session logged in as and which rule chose that user
// (user@name, the instance's Connect as…, its tag, Settings, the AMI, the default), redrawn when
// the language changes.

export function loginBadge(): { el: HTMLElement; set(login: { user: string; source?: UserSource } | undefined): void; dispose(): void } {
  const el = h('span', { class: 'term-transport term-login', 'data-testid': 'login-user', hidden: true });
  let current: { user: string; source?: UserSource } | undefined;
  const draw = () => {
    el.hidden = !current;
    if (!current) return;
    const source = current.source ? t(`src_${current.source}` as TerminalWord) : '';
    el.textContent = source ? t('loginFrom', { user: current.user, source }) : t('loginAs', { user: current.user });
    el.title = el.textContent;
    if (current.source) el.dataset.source = current.source;
    el.setAttribute('aria-label', el.title);
  };
  const off = onLocaleChange(draw);
  return {
    el,
    set(login) {
      current = login;
      draw();
    },
    dispose: off,
  };
}
