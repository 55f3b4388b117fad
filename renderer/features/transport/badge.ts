import type { TransportName } from '../../../src/common/model/transport.js';
import { onLocaleChange } from '../../i18n/index.js';
import { h } from '../../lib/dom.js';
import { t } from './messages.js';
import './transport.css';

// The terminal tab's note of how the session reached the instance (direct, jump host, EC2
// Instance Connect Endpoint, SSM), redrawn when the language changes.

interface TransportBadge {
  readonly el: HTMLElement;
  set(name: TransportName | undefined): void;
  dispose(): void;
}

export function transportBadge(): TransportBadge {
  const el = h('span', { class: 'term-transport', 'data-testid': 'transport', hidden: true });
  let current: TransportName | undefined;
  const draw = () => {
    el.hidden = !current;
    if (!current) return;
    const how = t(current);
    el.textContent = how;
    el.title = t('title', { how });
    el.dataset.transport = current;
  };
  const off = onLocaleChange(draw);
  return {
    el,
    set(name) {
      current = name;
      draw();
    },
    dispose: off,
  };
}
