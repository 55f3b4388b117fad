import type { AppErrorData } from '../../../src/common/errors.js';
import type { Instance } from '../../../src/common/model/instance.js';
import type { SavedTunnel, TunnelStatusPayload } from '../../../src/common/tunnels/contract.js';
import { instancesFor, tagText } from '../../../src/common/tunnels/binding.js';
import type { Api } from '../../lib/api.js';
import { confirmDialog } from '../../lib/dialog.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { observable } from '../../lib/observable.js';
import { bindText, onWords, statusLine } from '../../lib/words.js';
import { connectedText, describeTunnel, errorText, isRunning, runKey, stoppedStatus } from './describe.js';
import { TunnelForm } from './form.js';
import { t } from './messages.js';
import { paintTunnelRow, type TunnelPlace, type TunnelRowActions } from './row.js';
import './tunnels.css';

// The Tunnels tab: saved tunnels per instance or per tag (add, edit, delete), start/stop, state,
// bytes and the address to copy. A tag tunnel has a row under every listed instance with the tag,
// each started and stopped on its own. Tunnels run in the engine, so this view only shows and
// steers them; a status event repaints one row. The form (form.ts) and each row (row.ts) are their
// own modules.

interface TunnelsViewDeps {
  api: Api;
  instances: () => Promise<Instance[]>;
}

const COLUMNS = ['colInstance', 'colTunnel', 'colState', 'colTraffic', 'colActions'] as const;

export function createTunnelsView(deps: TunnelsViewDeps): TunnelsView {
  return new TunnelsView(deps);
}

class TunnelsView {
  readonly el: HTMLElement;
  private readonly store = new Disposables();
  private tunnels: SavedTunnel[] = [];
  private readonly status = new Map<string, TunnelStatusPayload>();
  private readonly instances = observable<Instance[]>([]);
  private readonly rows = new Map<string, HTMLTableRowElement>();
  private readonly table = h('table', { class: 'tunnel-list' });
  private readonly empty = h('p', { class: 'muted tunnel-empty' });
  private readonly form: TunnelForm;
  private readonly sayList: (words: (() => string) | null) => void;
  private readonly actions: TunnelRowActions = {
    startStop: (place, st) => this.startStop(place, st),
    copy: (address) => void this.copy(address),
    edit: (tn) => {
      if ([...this.status.values()].some((s) => s.id === tn.id && isRunning(s))) this.sayList(() => t('stopFirst'));
      else this.form.edit(tn);
    },
    remove: (tn) => void this.remove(tn),
    nameOf: (instanceId) => this.instances.value.find((i) => i.id === instanceId)?.name ?? instanceId,
  };

  constructor(private readonly deps: TunnelsViewDeps) {
    const { store } = this;
    const heading = h('h2', { id: 'tunnels-heading' });
    const intro = h('p', { class: 'muted' });
    const listStatus = h('p', { class: 'tunnels-status', role: 'status' });
    bindText(store, heading, () => t('heading'));
    bindText(store, intro, () => t('intro'));
    bindText(store, this.empty, () => t('listEmpty'));
    this.sayList = statusLine(store, listStatus);
    this.form = new TunnelForm({ api: deps.api, store, instances: this.instances, saved: () => this.reload() });
    this.el = h('section', { class: 'tunnels-view', 'aria-labelledby': 'tunnels-heading' }, heading, intro, this.form.el, listStatus, this.empty, this.table);
    store.add(deps.api.on('tunnels.status', (s) => this.update(s)));
    // "Connected for …" counts on between status events (they come only when something changes).
    store.every(1000, () => {
      for (const p of this.el.querySelectorAll<HTMLElement>('.tunnel-since[data-since]')) p.textContent = connectedText(Number(p.dataset.since));
    });
    onWords(store, () => this.paintList());
  }

  tabLabel(): string {
    return t('tab');
  }

  /** The tab became visible: reread the instances to offer and the tunnels. */
  async refresh(): Promise<void> {
    try {
      this.instances.set((await this.deps.instances()).slice().sort((a, b) => (a.name ?? a.id).localeCompare(b.name ?? b.id)));
    } catch {
      // the list shows its own problem; tunnels to saved instances still work
    }
    this.form.paint();
    await this.reload();
  }

  /** Reads the tunnels again; if that fails, the list stays as it was and says why. */
  private async reload(): Promise<void> {
    try {
      await this.load();
    } catch (e) {
      this.sayList(() => errorText(e as AppErrorData, undefined));
    }
  }

  dispose(): void {
    this.store.dispose();
  }

  private async load(): Promise<void> {
    const r = await this.deps.api.call('tunnels.list', {});
    this.tunnels = r.tunnels;
    // The list names every run that is up or failed; any other is stopped.
    this.status.clear();
    for (const s of r.status) this.status.set(runKey(s.id, s.instanceId), s);
    this.paintList();
  }

  /** A tunnel's rows: one for an instance tunnel; for a tag tunnel one per listed instance with the tag. */
  private placesOf(tn: SavedTunnel): TunnelPlace[] {
    if (!tn.tag) return [{ tn, key: runKey(tn.id, undefined), inst: undefined }];
    const found = instancesFor(tn, this.instances.value);
    return found.length ? found.map((inst) => ({ tn, key: runKey(tn.id, inst.id), inst })) : [{ tn, key: runKey(tn.id, '-'), inst: undefined }];
  }

  private paintRow(place: TunnelPlace): void {
    const row = this.rows.get(place.key) ?? h('tr', { 'data-tunnel': place.tn.id });
    this.rows.set(place.key, row);
    paintTunnelRow(row, place, this.status.get(place.key) ?? stoppedStatus(place.tn, place.inst), this.actions);
  }

  private paintList(): void {
    const { tunnels, rows } = this;
    this.empty.hidden = tunnels.length > 0;
    this.table.hidden = tunnels.length === 0;
    const head = h('tr', {}, ...COLUMNS.map((c) => h('th', { scope: 'col', text: t(c) })));
    const places = tunnels.flatMap((tn) => this.placesOf(tn));
    for (const key of [...rows.keys()]) if (!places.some((p) => p.key === key)) rows.delete(key);
    for (const p of places) this.paintRow(p);
    this.table.replaceChildren(h('thead', {}, head), h('tbody', {}, ...places.map((p) => rows.get(p.key)!)));
  }

  private update(s: TunnelStatusPayload): void {
    const key = runKey(s.id, s.instanceId);
    this.status.set(key, s);
    const tn = this.tunnels.find((x) => x.id === s.id);
    const place = tn && this.placesOf(tn).find((p) => p.key === key);
    if (place) this.paintRow(place);
  }

  private startStop({ tn, inst }: TunnelPlace, st: TunnelStatusPayload): void {
    const { api } = this.deps;
    this.sayList(null);
    const ref = inst ? { id: tn.id, instanceId: inst.id, region: inst.region } : { id: tn.id };
    if (isRunning(st)) return void api.call('tunnels.stop', ref).then((s) => this.update(s));
    this.update({ ...st, state: 'connecting', error: null });
    api.call('tunnels.start', ref).then(
      (s) => this.update(s),
      (err: AppErrorData) => this.update({ ...st, state: 'failed', error: err }),
    );
  }

  private async copy(address: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(address);
      this.sayList(() => t('copied', { address }));
    } catch {
      this.sayList(() => t('copyFailed'));
    }
  }

  private async remove(tn: SavedTunnel): Promise<void> {
    const tunnel = describeTunnel(tn, null);
    const ok = await confirmDialog({
      title: t('removeTitle'),
      body: tn.tag ? t('removeBodyTag', { tunnel, tag: tagText(tn.tag) }) : t('removeBody', { tunnel, instance: tn.label }),
      confirm: t('removeConfirm'),
      danger: true,
    });
    if (!ok) return;
    await this.deps.api.call('tunnels.remove', { id: tn.id });
    await this.load();
  }
}
