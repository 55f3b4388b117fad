import type { Instance } from '../../../src/common/model/instance.js';
import { h } from '../../lib/dom.js';
import { addressOf } from './model.js';
import { t } from './messages.js';
import { t as serialWords } from '../serialConsole/messages.js';
import { instanceStateWord } from '../../i18n/instanceState.js';

// One instance's row in the list: name, id and tags, state, type, zone, address, key pair, and
// its buttons (Start/Stop, Connect or Start and connect). What the buttons and keys do is the
// list's business; the row only says which was used.

export type Busy = 'busyStarting' | 'busyStopping';

export interface RowActions {
  connect(i: Instance): void;
  /** Opens the instance's "Connect as…" (user, key file, port). */
  connectAs(i: Instance): void;
  /** Opens the instance's EC2 Serial Console in a new tab. */
  serialConsole(i: Instance): void;
  startStop(i: Instance, action: 'start' | 'stop'): void;
  focused(i: Instance, tr: HTMLTableRowElement): void;
  key(e: KeyboardEvent, tr: HTMLTableRowElement, i: Instance, index: number): void;
}

/** "web-1 (i-…)" in confirmations; the id alone for an unnamed instance. */
export function labelOf(i: Instance): string {
  return i.name ? `${i.name} (${i.id})` : i.id;
}

/** The user's own tags first; TagSSH's per-instance overrides (tagssh:*) after them. */
function tagsText(i: Instance): string {
  return Object.entries(i.tags)
    .filter(([k]) => k !== 'Name')
    .sort(([a], [b]) => Number(a.startsWith('tagssh:')) - Number(b.startsWith('tagssh:')))
    .map(([k, v]) => `${k}=${v}`)
    .join('  ');
}

/** A row button: its click is the row's action only, not a click on the row too. */
function rowButton(props: Record<string, unknown>, action: () => void): HTMLButtonElement {
  return h('button', { type: 'button', ...props, onClick: (e: Event) => (e.stopPropagation(), action()) });
}

function actionsCell(i: Instance, busy: Busy | undefined, act: RowActions): HTMLTableCellElement {
  const addr = addressOf(i);
  const canConnect = i.state === 'running' || i.state === 'stopped';
  const lifecycle =
    i.state === 'running' || i.state === 'stopped'
      ? rowButton({ class: 'btn subtle', text: t(i.state === 'running' ? 'stop' : 'start'), disabled: !!busy }, () =>
          act.startStop(i, i.state === 'running' ? 'stop' : 'start'),
        )
      : null;
  return h(
    'td',
    { class: 'actions' },
    lifecycle,
    // Short on the row (the actions column is narrow); its full name for screen readers and on hover.
    rowButton({ class: 'btn subtle connect-as', text: t('connectAsShort'), 'aria-label': t('connectAs'), title: t('connectAsTitle') }, () => act.connectAs(i)),
    // Only a running instance has a serial port to reach; short on the row, its full name for screen readers.
    i.state === 'running'
      ? rowButton(
          {
            class: 'btn subtle serial-console',
            text: serialWords('buttonShort'),
            'aria-label': serialWords('button'),
            title: serialWords('buttonTitle'),
            disabled: !!busy,
          },
          () => act.serialConsole(i),
        )
      : null,
    rowButton(
      {
        class: 'btn primary connect',
        text: i.state === 'stopped' ? t('startAndConnect') : t('connect'),
        disabled: !canConnect || !!busy,
        title: i.state === 'stopped' ? t('startAndConnectTitle') : t('connectTitle', { address: addr.text }),
      },
      () => act.connect(i),
    ),
  );
}

export function instanceRow(i: Instance, index: number, busy: Busy | undefined, act: RowActions): HTMLTableRowElement {
  const addr = addressOf(i);
  const canConnect = i.state === 'running' || i.state === 'stopped';
  const tagText = tagsText(i);
  const stateText = busy ? t(busy) : instanceStateWord(i.state);
  const tr = h(
    'tr',
    { class: 'row', tabindex: '-1', 'data-id': i.id, 'data-index': String(index), 'aria-label': `${i.name ?? i.id} ${stateText}` },
    h(
      'td',
      { class: 'name' },
      h('div', { class: 'n', text: i.name ?? t('noName') }),
      h('div', { class: 'sub', text: `${i.id}${tagText ? ` · ${tagText}` : ''}`, title: tagText }),
    ),
    h('td', {}, h('span', { class: `state s-${i.state}`, 'data-state': i.state }, h('span', { class: 'dot' }), stateText)),
    h('td', { text: i.type }),
    h('td', { text: i.az ?? i.region }),
    h(
      'td',
      { class: 'addr' },
      addr.text,
      addr.eip ? h('span', { class: 'badge', title: t('eipTitle'), text: t('eip') }) : null,
      addr.kind === 'private' ? h('span', { class: 'badge muted', text: t('private') }) : null,
    ),
    h('td', { text: i.keyName ?? '—' }),
    actionsCell(i, busy, act),
  );
  tr.addEventListener('focus', () => act.focused(i, tr));
  tr.addEventListener('dblclick', () => canConnect && act.connect(i));
  tr.addEventListener('keydown', (e) => act.key(e, tr, i, index));
  return tr;
}
