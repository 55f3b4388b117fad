import type { Instance } from '../../../src/common/model/instance.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { InstanceList } from '../../../src/common/contract.js';
import { AppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { h, clear } from '../../lib/dom.js';
import { ago } from '../../lib/time.js';
import { confirmDialog } from '../../lib/dialog.js';
import { addressOf, arrange, type GroupKey, type SortKey } from './model.js';

// The instance list: cache-first (the backend answers from cache and pushes a fresh list),
// type-to-filter, sort/group, keyboard navigation, start/stop with confirmation, Connect per row.

export interface InstancesDeps {
  api: Api;
  settings(): Settings;
  saveSettings(next: Settings): Promise<void>;
  connect(instance: Instance, opts: { start: boolean }): void;
  connectByName(name: string): void;
  /** Opens the export dialog for the instances the list shows right now. */
  exportInstances(instances: Instance[]): void;
}

export interface InstancesView {
  el: HTMLElement;
  load(refresh?: boolean): Promise<void>;
  /** The tab became visible: focus the list, refresh in the background when the list is stale. */
  activate(): void;
}

const STALE_MS = 30_000;

const COMMON_REGIONS = ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2', 'ca-central-1', 'eu-west-1', 'eu-west-2', 'eu-west-3', 'eu-central-1', 'eu-north-1', 'ap-northeast-1', 'ap-northeast-2', 'ap-southeast-1', 'ap-southeast-2', 'ap-south-1', 'sa-east-1'];

export function createInstancesView(deps: InstancesDeps): InstancesView {
  let list: InstanceList | null = null;
  let query = '';
  let sort: SortKey = 'name';
  let group: GroupKey = 'none';
  let loading = false;
  let error: AppError | null = null;
  let focusedId: string | null = null;
  const busy = new Map<string, string>(); // instance id → "Starting…" / "Stopping…"
  let loadSeq = 0;

  const filter = h('input', { class: 'filter', type: 'search', placeholder: 'Filter by name, id, IP or tag…', 'aria-label': 'Filter instances', spellcheck: 'false' });
  const sortSel = select('Sort by', [['name', 'Name'], ['state', 'State'], ['region', 'Region']], sort);
  const groupSel = select('Group by', [['none', 'No grouping'], ['region', 'By region'], ['state', 'By state']], group);
  const profileSel = h('select', { 'aria-label': 'AWS profile', class: 'picker' });
  const regionSel = h('select', { 'aria-label': 'Region', class: 'picker' });
  const refreshBtn = h('button', { class: 'btn', type: 'button', title: 'Refresh from EC2', text: 'Refresh' });
  const exportBtn = h('button', { class: 'btn', type: 'button', title: 'OpenSSH config or Tera Term macros for the listed instances', text: 'Export…' });
  const updated = h('span', { class: 'updated', 'data-testid': 'updated' });
  const quick = h('input', { class: 'quick', type: 'text', placeholder: 'Connect to Name tag…', 'aria-label': 'Connect by name', spellcheck: 'false' });
  const body = h('div', { class: 'list-body' });
  const status = h('div', { class: 'list-status', role: 'status' });

  const el = h(
    'section',
    { class: 'instances', 'aria-label': 'Instances' },
    h('div', { class: 'toolbar' }, filter, sortSel, groupSel, h('span', { class: 'spacer' }), profileSel, regionSel, refreshBtn, exportBtn),
    h('div', { class: 'subbar' }, status, updated, h('span', { class: 'spacer' }), quick),
    body,
  );

  filter.addEventListener('input', () => {
    query = filter.value;
    render();
  });
  filter.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || (e.key === 'Enter' && query)) {
      e.preventDefault();
      rows()[0]?.focus();
      if (e.key === 'Enter') rows()[0]?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    }
  });
  sortSel.addEventListener('change', () => {
    sort = sortSel.value as SortKey;
    render();
  });
  groupSel.addEventListener('change', () => {
    group = groupSel.value as GroupKey;
    render();
  });
  refreshBtn.addEventListener('click', () => void load(true));
  exportBtn.addEventListener('click', () => deps.exportInstances(list ? arrange(list.instances, query, sort, group).flatMap((g) => g.items) : []));
  quick.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && quick.value.trim()) {
      deps.connectByName(quick.value.trim());
      quick.value = '';
    }
  });
  profileSel.addEventListener('change', () => void changeScope({ profile: profileSel.value || null }));
  regionSel.addEventListener('change', () => {
    const v = regionSel.value;
    if (v === 'custom') return;
    void changeScope({ regions: v === 'default' ? [] : [v] });
  });

  deps.api.on('instances.updated', (fresh) => {
    list = fresh;
    error = null;
    render();
  });
  setInterval(renderUpdated, 1000);

  async function changeScope(patch: Partial<Settings>) {
    await deps.saveSettings({ ...deps.settings(), ...patch });
    list = null;
    await load(false);
  }

  async function loadProfiles() {
    try {
      const { profiles, defaultRegion } = await deps.api.call('aws.profiles', {});
      const s = deps.settings();
      clear(profileSel);
      profileSel.append(h('option', { value: '', text: 'Default profile' }));
      for (const p of profiles) profileSel.append(h('option', { value: p, text: p }));
      if (s.profile && !profiles.includes(s.profile)) profileSel.append(h('option', { value: s.profile, text: s.profile }));
      profileSel.value = s.profile ?? '';
      clear(regionSel);
      regionSel.append(h('option', { value: 'default', text: defaultRegion ? `Default (${defaultRegion})` : 'Default region' }), h('option', { value: 'all', text: 'All regions' }));
      for (const r of COMMON_REGIONS) regionSel.append(h('option', { value: r, text: r }));
      const rs = s.regions;
      if (rs.length === 0) regionSel.value = 'default';
      else if (rs.length === 1 && (rs[0] === 'all' || COMMON_REGIONS.includes(rs[0]!))) regionSel.value = rs[0]!;
      else {
        regionSel.append(h('option', { value: 'custom', text: rs.join(', ') }));
        regionSel.value = 'custom';
      }
    } catch {
      // Pickers stay empty; the list itself reports credential problems.
    }
  }

  async function load(refresh = false) {
    const seq = ++loadSeq;
    loading = true;
    renderStatus();
    if (!refresh) void loadProfiles();
    try {
      const res = await deps.api.call('instances.list', { refresh });
      if (seq !== loadSeq) return;
      list = res;
      error = null;
    } catch (e) {
      if (seq !== loadSeq) return;
      error = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
    } finally {
      if (seq === loadSeq) loading = false;
    }
    render();
  }

  function renderUpdated() {
    updated.textContent = list ? `updated ${ago(list.fetchedAt)}${list.fromCache ? ' (cached, refreshing…)' : ''}` : '';
  }

  function renderStatus() {
    clear(status);
    status.classList.toggle('error', !!error);
    if (loading && !list) status.append('Loading instances…');
    else if (error) status.append(h('strong', { text: error.message }), error.hint ? h('span', { class: 'hint', text: ` ${error.hint}` }) : '');
    else if (list) {
      const shown = arrange(list.instances, query, sort, group).reduce((n, g) => n + g.items.length, 0);
      status.append(query ? `${shown} of ${list.instances.length} instances` : `${list.instances.length} instances`);
      if (loading) status.append(' · refreshing…');
    }
    renderUpdated();
  }

  function rows(): HTMLElement[] {
    return [...body.querySelectorAll<HTMLElement>('tr.row')];
  }

  function render() {
    renderStatus();
    const hadFocus = body.contains(document.activeElement);
    clear(body);
    if (!list) return;
    const groups = arrange(list.instances, query, sort, group);
    const table = h(
      'table',
      { class: 'grid' },
      h('thead', {}, h('tr', {}, ...['Name', 'State', 'Type', 'Zone', 'Address', 'Key', ''].map((t) => h('th', { scope: 'col', text: t })))),
    );
    for (const g of groups) {
      const tbody = h('tbody', {});
      if (g.title) tbody.append(h('tr', { class: 'group' }, h('th', { colspan: '7', scope: 'rowgroup', text: `${g.title} · ${g.items.length}` })));
      for (const i of g.items) tbody.append(row(i));
      table.append(tbody);
    }
    if (groups.every((g) => g.items.length === 0)) {
      body.append(h('p', { class: 'empty', text: list.instances.length ? 'No instance matches the filter.' : 'No instances in this profile and region.' }));
    } else body.append(table);
    const target = rows().find((r) => r.dataset.id === focusedId);
    if (hadFocus) (target ?? rows()[0])?.focus();
    else for (const r of rows()) r.tabIndex = r === (target ?? rows()[0]) ? 0 : -1;
  }

  function row(i: Instance): HTMLTableRowElement {
    const addr = addressOf(i);
    const state = busy.get(i.id);
    const canConnect = i.state === 'running' || i.state === 'stopped';
    const connectBtn = h('button', {
      class: 'btn primary connect',
      type: 'button',
      text: i.state === 'stopped' ? 'Start and connect' : 'Connect',
      disabled: !canConnect || !!state,
      title: i.state === 'stopped' ? 'Start the instance, wait for SSH, then connect' : `ssh to ${addr.text}`,
      onClick: (e: Event) => {
        e.stopPropagation();
        deps.connect(i, { start: i.state === 'stopped' });
      },
    });
    const lifecycle =
      i.state === 'running'
        ? h('button', { class: 'btn subtle', type: 'button', text: 'Stop', disabled: !!state, onClick: (e: Event) => (e.stopPropagation(), void startStop(i, 'stop')) })
        : i.state === 'stopped'
          ? h('button', { class: 'btn subtle', type: 'button', text: 'Start', disabled: !!state, onClick: (e: Event) => (e.stopPropagation(), void startStop(i, 'start')) })
          : null;
    // The user's own tags first; TagSSH's per-instance overrides (tagssh:*) after them.
    const tagText = Object.entries(i.tags)
      .filter(([k]) => k !== 'Name')
      .sort(([a], [b]) => Number(a.startsWith('tagssh:')) - Number(b.startsWith('tagssh:')))
      .map(([k, v]) => `${k}=${v}`)
      .join('  ');
    const tr = h(
      'tr',
      { class: 'row', tabindex: '-1', 'data-id': i.id, 'aria-label': `${i.name ?? i.id} ${i.state}` },
      h('td', { class: 'name' }, h('div', { class: 'n', text: i.name ?? '(no name)' }), h('div', { class: 'sub', text: `${i.id}${tagText ? ` · ${tagText}` : ''}`, title: tagText })),
      h('td', {}, h('span', { class: `state s-${i.state}` }, h('span', { class: 'dot' }), state ?? i.state)),
      h('td', { text: i.type }),
      h('td', { text: i.az ?? i.region }),
      h('td', { class: 'addr' }, addr.text, addr.eip ? h('span', { class: 'badge', title: 'Elastic IP: survives stop/start', text: 'EIP' }) : null, addr.kind === 'private' ? h('span', { class: 'badge muted', text: 'private' }) : null),
      h('td', { text: i.keyName ?? '—' }),
      h('td', { class: 'actions' }, lifecycle, connectBtn),
    );
    tr.addEventListener('focus', () => {
      focusedId = i.id;
      for (const r of rows()) r.tabIndex = r === tr ? 0 : -1;
    });
    tr.addEventListener('dblclick', () => canConnect && deps.connect(i, { start: i.state === 'stopped' }));
    tr.addEventListener('keydown', (e) => onRowKey(e, tr, i, canConnect));
    return tr;
  }

  function onRowKey(e: KeyboardEvent, tr: HTMLElement, i: Instance, canConnect: boolean) {
    if (e.target !== tr) return;
    const all = rows();
    const at = all.indexOf(tr);
    const go = (n: number) => {
      e.preventDefault();
      all[Math.max(0, Math.min(all.length - 1, n))]?.focus();
    };
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') {
      if (at > 0) go(at - 1);
      else {
        e.preventDefault();
        filter.focus();
      }
    }
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(all.length - 1);
    else if (e.key === 'Enter') {
      e.preventDefault();
      if (canConnect) deps.connect(i, { start: i.state === 'stopped' });
    } else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      // Type-to-filter from anywhere in the list.
      e.preventDefault();
      filter.focus();
      filter.value += e.key;
      filter.dispatchEvent(new Event('input'));
    }
  }

  async function startStop(i: Instance, action: 'start' | 'stop') {
    const label = i.name ? `${i.name} (${i.id})` : i.id;
    const ok = await confirmDialog({
      title: action === 'stop' ? 'Stop instance?' : 'Start instance?',
      body: action === 'stop' ? `Stop ${label} in ${i.region}? Open sessions to it will drop; its public IP changes unless it has an Elastic IP.` : `Start ${label} in ${i.region}?`,
      confirm: action === 'stop' ? 'Stop' : 'Start',
      danger: action === 'stop',
    });
    if (!ok) return;
    busy.set(i.id, action === 'stop' ? 'stopping…' : 'starting…');
    render();
    try {
      const updatedInstance = await deps.api.call(action === 'stop' ? 'instances.stop' : 'instances.start', { id: i.id, region: i.region });
      replace(updatedInstance);
      await settle(i.id, action === 'stop' ? 'stopped' : 'running');
    } catch (e) {
      error = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
    } finally {
      busy.delete(i.id);
      render();
    }
  }

  function replace(next: Instance) {
    if (!list) return;
    list = { ...list, instances: list.instances.map((x) => (x.id === next.id ? next : x)) };
    render();
  }

  /** Live state: refresh until the instance reaches its target state (or a minute passes). */
  async function settle(id: string, want: string) {
    for (let n = 0; n < 30; n++) {
      const cur = list?.instances.find((x) => x.id === id);
      if (cur?.state === want) return;
      await new Promise((r) => setTimeout(r, 2000));
      await load(true);
    }
  }

  return {
    el,
    load,
    activate() {
      (rows().find((r) => r.tabIndex === 0) ?? filter).focus();
      if (list && !loading && Date.now() - list.fetchedAt > STALE_MS) void load(true);
    },
  };
}

function select(label: string, options: Array<[string, string]>, value: string): HTMLSelectElement {
  const s = h('select', { 'aria-label': label, class: 'picker' }, ...options.map(([v, t]) => h('option', { value: v, text: t })));
  s.value = value;
  return s;
}
