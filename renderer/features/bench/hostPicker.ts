import type { Instance } from '../../../src/common/model/instance.js';
import { clear, h } from '../../lib/dom.js';
import { t } from './messages.js';

// The Benchmarks view's instances to run on (and the peer of a pair), as "region/id" values.

/** The running instances as tick boxes and peer choices, by name; ticks and the peer chosen are kept. */
export function renderHosts(hostList: HTMLElement, peerSel: HTMLSelectElement, instances: Instance[]): void {
  const checked = new Set([...hostList.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => i.value));
  const peer = peerSel.value;
  clear(hostList);
  clear(peerSel);
  // By name, so the list (and the order the batch starts its hosts in) never depends on the inventory's order.
  const running = instances.filter((i) => i.state === 'running').sort((a, b) => (a.name ?? a.id).localeCompare(b.name ?? b.id) || a.id.localeCompare(b.id));
  if (!running.length) hostList.append(h('span', { class: 'bench-help', text: t('noInstances') }));
  for (const i of running) {
    const label = `${i.name ?? i.id} (${i.type}, ${i.id})`;
    const id = `bench-host-${i.region}-${i.id}`;
    hostList.append(
      h(
        'div',
        { class: 'bench-check' },
        h('input', { type: 'checkbox', id, value: `${i.region}/${i.id}`, checked: checked.has(`${i.region}/${i.id}`), 'aria-label': i.name ?? i.id }),
        h('label', { for: id, text: label }),
      ),
    );
    peerSel.append(h('option', { value: `${i.region}/${i.id}`, text: label }));
  }
  if (peer && [...peerSel.options].some((o) => o.value === peer)) peerSel.value = peer;
}

export const refOf = (v: string) => {
  const [region, id] = v.split('/');
  return { region: region!, id: id! };
};
