import type { Instance } from '../../../src/common/model/instance.js';
import type { SavedTunnel, TunnelStatusPayload } from '../../../src/common/tunnels/contract.js';
import { tagText } from '../../../src/common/tunnels/binding.js';
import { formatBytes } from '../../lib/bytes.js';
import { h } from '../../lib/dom.js';
import { connectedText, describeTunnel, errorText, isRunning, STATE_WORD, timeOfDay } from './describe.js';
import { t } from './messages.js';

// One run's row in the tunnel list: where it runs, what it forwards, its state and health, its
// traffic and its buttons. What the buttons do is the list's business; the row only says which.

/** One row of the list: the tunnel, and for a tag tunnel the listed instance it runs on (none: nowhere yet). */
export interface TunnelPlace {
  tn: SavedTunnel;
  key: string;
  inst: Instance | undefined;
}

export interface TunnelRowActions {
  startStop(place: TunnelPlace, st: TunnelStatusPayload): void;
  copy(address: string): void;
  edit(tn: SavedTunnel): void;
  remove(tn: SavedTunnel): void;
  nameOf(instanceId: string): string;
}

/** The link's health: how long it has been up, how often it was rebuilt and why the last time. */
function healthOf(st: TunnelStatusPayload, tn: SavedTunnel, nameOf: (id: string) => string): HTMLElement {
  const running = isRunning(st);
  const health = h('div', { class: 'tunnel-health' });
  if (st.state === 'open' && st.connectedSince !== null) {
    const since = h('p', { class: 'tunnel-since', text: connectedText(st.connectedSince) });
    since.dataset.since = String(st.connectedSince);
    health.append(since);
  }
  if (st.state === 'reconnecting') {
    health.append(h('p', { class: 'muted tunnel-note', text: t('rebuildingNote') }));
    if (st.waiting) health.append(h('p', { class: 'tunnel-waiting', text: t('waitingClients', { count: st.waiting }) }));
  }
  if (running && st.reconnects > 0)
    health.append(h('p', { class: 'tunnel-rebuilds', text: st.reconnects === 1 ? t('rebuiltOnce') : t('rebuiltTimes', { count: st.reconnects }) }));
  if (running && st.lastError && st.state === 'open')
    health.append(
      h('p', {
        class: 'muted tunnel-last-error',
        text: t('lastProblem', { time: timeOfDay(st.lastError.at), error: errorText(st.lastError.error, tn, nameOf) }),
      }),
    );
  return health;
}

function stateCell(place: TunnelPlace, st: TunnelStatusPayload, nameOf: (id: string) => string): HTMLElement {
  const { tn, inst } = place;
  const cell = h('td', { class: 'tunnel-state' }, h('span', { class: `state state-${st.state}`, text: t(STATE_WORD[st.state]) }));
  // A tag with no listed instance: nothing to start until one appears in the Instances tab.
  if (tn.tag && !inst) cell.append(h('p', { class: 'muted tunnel-note', text: t('tagNoInstance', { tag: tagText(tn.tag) }) }));
  if (st.error) cell.append(h('p', { class: 'tunnel-error', role: 'alert', text: errorText(st.error, tn, nameOf) }));
  const health = healthOf(st, tn, nameOf);
  if (health.childElementCount) cell.append(health);
  return cell;
}

function buttons(place: TunnelPlace, st: TunnelStatusPayload, act: TunnelRowActions): HTMLElement {
  const { tn, inst } = place;
  const running = isRunning(st);
  const address = st.address;
  const button = (cls: string, text: string, onclick: () => void, more: Record<string, unknown> = {}) =>
    h('button', { class: cls, type: 'button', text, onclick, ...more });
  return h(
    'div',
    { class: 'tunnel-buttons' },
    button(running ? 'btn' : 'btn primary', t(running ? 'stop' : 'start'), () => act.startStop(place, st), { hidden: !!tn.tag && !inst }),
    button('btn', t('copy'), () => address && act.copy(address), { disabled: !(running && address && tn.kind !== 'remote') }),
    button('btn', t('edit'), () => act.edit(tn)),
    button('btn danger', t('remove'), () => act.remove(tn)),
  );
}

/** Paints `row` afresh for `place` in state `st`. */
export function paintTunnelRow(row: HTMLTableRowElement, place: TunnelPlace, st: TunnelStatusPayload, act: TunnelRowActions): void {
  const { tn, inst } = place;
  if (inst) row.dataset.instance = inst.id;
  row.dataset.state = st.state;
  const instanceCell = h('td', { class: 'tunnel-instance', text: tn.tag ? (inst ? (inst.name ?? inst.id) : '—') : tn.label });
  if (tn.tag) instanceCell.append(' ', h('small', { class: 'tunnel-tag', text: t('tagBadge', { tag: tagText(tn.tag) }) }));
  row.replaceChildren(
    instanceCell,
    h('td', { class: 'tunnel-desc' }, h('code', { text: describeTunnel(tn, isRunning(st) ? st.address : null) })),
    stateCell(place, st, act.nameOf),
    h('td', { class: 'tunnel-traffic', text: t('traffic', { in: formatBytes(st.bytesIn), out: formatBytes(st.bytesOut) }) }),
    h('td', { class: 'tunnel-actions' }, buttons(place, st, act)),
  );
}
