import type { AppErrorData } from '../../../src/common/errors.js';
import type { Instance } from '../../../src/common/model/instance.js';
import { TunnelErrorDetailsSchema, type SavedTunnel, type TunnelStatusPayload } from '../../../src/common/tunnels/contract.js';
import { detailsAs } from '../../../src/common/errorDetails.js';
import { formatAddress, tunnelProblems, type TunnelField, type TunnelKind, type TunnelProblem, type TunnelSpec } from '../../../src/common/tunnels/spec.js';
import type { Api } from '../../lib/api.js';
import { confirmDialog } from '../../lib/dialog.js';
import { h } from '../../lib/dom.js';
import { describeError } from '../../i18n/errors.js';
import { getLocale, onLocaleChange } from '../../i18n/index.js';
import { t, type TunnelWord } from './messages.js';

// The Tunnels tab: saved tunnels per instance (add, edit, delete), start/stop, state, bytes and
// the address to copy. Tunnels run in the engine, so this view only shows and steers them; a
// status event repaints one row. Fields are checked with the same rules as `tagssh tunnel`
// (src/common/tunnels/spec.ts), worded here in the app's own terms.

export interface TunnelsViewDeps {
  api: Api;
  instances: () => Promise<Instance[]>;
}

type Draft = Omit<SavedTunnel, 'id'> & { id?: string };

const KINDS: Array<[TunnelKind, TunnelWord]> = [
  ['local', 'kindLocal'],
  ['dynamic', 'kindDynamic'],
  ['remote', 'kindRemote'],
];
const STATE_WORD: Record<TunnelStatusPayload['state'], TunnelWord> = {
  stopped: 'stateStopped',
  connecting: 'stateConnecting',
  open: 'stateOpen',
  reconnecting: 'stateReconnecting',
  failed: 'stateFailed',
};

function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${new Intl.NumberFormat(getLocale(), { maximumFractionDigits: i === 0 ? 0 : 1 }).format(v)} ${units[i]}`;
}

function problemWord(p: TunnelProblem, kind: TunnelKind): TunnelWord {
  if (p.code === 'portInvalid' && p.field === 'port' && kind !== 'remote') return 'problem_portInvalidLocal';
  return `problem_${p.code}` as TunnelWord;
}

/** "127.0.0.1:8080 → db:5432" in the app's words, from the saved spec and the live address. */
function describeTunnel(tn: SavedTunnel, address: string | null): string {
  const where = address ?? formatAddress(tn.bind ?? '127.0.0.1', tn.port);
  if (tn.kind === 'dynamic') return t('socks', { address: where });
  const dest = formatAddress(tn.host ?? '', tn.hostPort ?? 0);
  return t(tn.kind === 'local' ? 'localDesc' : 'remoteDesc', { address: where, dest });
}

function errorText(err: AppErrorData, tn: SavedTunnel | undefined): string {
  const d = detailsAs(err, TunnelErrorDetailsSchema);
  if (tn && d?.problem && ['portInUse', 'portPrivileged', 'bindUnavailable'].includes(d.problem))
    return t(`listen_${d.problem}` as TunnelWord, { port: tn.port, bind: tn.bind ?? '127.0.0.1' });
  const w = describeError(err);
  return [w.title, w.hint, w.detail].filter(Boolean).join(' ');
}

export function createTunnelsView(deps: TunnelsViewDeps) {
  const { api } = deps;
  let tunnels: SavedTunnel[] = [];
  const status = new Map<string, TunnelStatusPayload>();
  let instances: Instance[] = [];
  let editing: string | null = null;

  const el = h('section', { class: 'tunnels-view', 'aria-labelledby': 'tunnels-heading' });
  const heading = h('h2', { id: 'tunnels-heading' });
  const intro = h('p', { class: 'muted' });

  // ---- form ----
  const legend = h('legend');
  const instanceSel = h('select', { id: 'tunnel-instance' });
  const kindSel = h('select', { id: 'tunnel-kind' });
  const inputs: Record<TunnelField, HTMLInputElement> = {
    bind: h('input', { id: 'tunnel-bind', type: 'text', autocomplete: 'off', spellcheck: 'false' }),
    port: h('input', { id: 'tunnel-port', type: 'text', inputmode: 'numeric', autocomplete: 'off' }),
    host: h('input', { id: 'tunnel-host', type: 'text', autocomplete: 'off', spellcheck: 'false' }),
    hostPort: h('input', { id: 'tunnel-hostport', type: 'text', inputmode: 'numeric', autocomplete: 'off' }),
  };
  const errs: Record<TunnelField, HTMLElement> = {
    bind: h('p', { class: 'field-error', id: 'tunnel-bind-error' }),
    port: h('p', { class: 'field-error', id: 'tunnel-port-error' }),
    host: h('p', { class: 'field-error', id: 'tunnel-host-error' }),
    hostPort: h('p', { class: 'field-error', id: 'tunnel-hostport-error' }),
  };
  const labels = {
    instance: h('label', { for: 'tunnel-instance' }),
    kind: h('label', { for: 'tunnel-kind' }),
    bind: h('label', { for: 'tunnel-bind' }),
    port: h('label', { for: 'tunnel-port' }),
    host: h('label', { for: 'tunnel-host' }),
    hostPort: h('label', { for: 'tunnel-hostport' }),
  };
  const saveBtn = h('button', { class: 'btn primary', type: 'submit' });
  const cancelBtn = h('button', { class: 'btn', type: 'button', hidden: true, onclick: () => resetForm() });
  const formStatus = h('p', { class: 'form-status', role: 'status' });
  const field = (label: HTMLElement, control: HTMLElement, err?: HTMLElement) => h('div', { class: 'field' }, label, control, err);
  const hostFields = [field(labels.host, inputs.host, errs.host), field(labels.hostPort, inputs.hostPort, errs.hostPort)];
  const form = h(
    'form',
    { class: 'tunnel-form', novalidate: true },
    h(
      'fieldset',
      {},
      legend,
      field(labels.instance, instanceSel),
      field(labels.kind, kindSel),
      field(labels.bind, inputs.bind, errs.bind),
      field(labels.port, inputs.port, errs.port),
      ...hostFields,
      h('div', { class: 'actions' }, saveBtn, cancelBtn),
    ),
    formStatus,
  );
  for (const f of Object.keys(inputs) as TunnelField[]) inputs[f].setAttribute('aria-describedby', errs[f].id);

  // ---- list ----
  const table = h('table', { class: 'tunnel-list' });
  const empty = h('p', { class: 'muted tunnel-empty' });
  const listStatus = h('p', { class: 'tunnels-status', role: 'status' });
  el.append(heading, intro, form, listStatus, empty, table);

  const kindNow = () => kindSel.value as TunnelKind;

  const paintForm = () => {
    const kind = kindNow();
    legend.textContent = t(editing ? 'formEdit' : 'formAdd');
    labels.instance.textContent = t('instance');
    labels.kind.textContent = t('kind');
    labels.bind.textContent = t('bind');
    labels.port.textContent = t(kind === 'remote' ? 'portRemote' : 'port');
    labels.host.textContent = t('host');
    labels.hostPort.textContent = t('hostPort');
    inputs.bind.placeholder = t(kind === 'remote' ? 'bindRemotePh' : 'bindPh');
    inputs.host.placeholder = t(kind === 'remote' ? 'hostRemotePh' : 'hostPh');
    for (const f of hostFields) f.hidden = kind === 'dynamic';
    saveBtn.textContent = t('save');
    cancelBtn.textContent = t('cancelEdit');
    cancelBtn.hidden = !editing;
    const keep = kindSel.value || 'local';
    kindSel.replaceChildren(...KINDS.map(([k, w]) => h('option', { value: k, text: t(w) })));
    kindSel.value = keep;
    const keepInst = instanceSel.value;
    instanceSel.replaceChildren(...instances.map((i) => h('option', { value: `${i.id} ${i.region}`, text: i.name ? `${i.name} (${i.id})` : i.id })));
    if (keepInst) instanceSel.value = keepInst;
    instanceSel.disabled = instances.length === 0;
    if (instances.length === 0) formStatus.textContent = t('instanceNone');
  };

  const showProblems = (problems: TunnelProblem[]) => {
    for (const f of Object.keys(errs) as TunnelField[]) {
      errs[f].textContent = '';
      inputs[f].removeAttribute('aria-invalid');
    }
    for (const p of problems) {
      if (errs[p.field].textContent) continue;
      errs[p.field].textContent = t(problemWord(p, kindNow()));
      inputs[p.field].setAttribute('aria-invalid', 'true');
    }
    const first = problems[0];
    if (first) inputs[first.field].focus();
  };

  const numberOf = (s: string): number => (/^\s*\d{1,5}\s*$/.test(s) ? Number(s) : NaN);

  /** The form as a draft, and its problems by the shared rules. */
  const readForm = (): { draft: Draft | null; problems: TunnelProblem[] } => {
    const [instanceId, region] = instanceSel.value.split(' ');
    const inst = instances.find((i) => i.id === instanceId && i.region === region);
    const kind = kindNow();
    const spec: TunnelSpec = { kind, port: numberOf(inputs.port.value) };
    const bind = inputs.bind.value.trim();
    if (bind) spec.bind = bind;
    if (kind !== 'dynamic') {
      spec.host = inputs.host.value.trim();
      if (inputs.hostPort.value.trim()) spec.hostPort = numberOf(inputs.hostPort.value);
    }
    // Privileged local ports: the engine decides (it knows whether it runs as root) when saving.
    const problems = tunnelProblems(spec, true);
    if (!inst || problems.length) return { draft: null, problems };
    const draft: Draft = { instanceId: inst.id, region: inst.region, label: inst.name ?? inst.id, kind, port: spec.port };
    if (spec.bind !== undefined) draft.bind = spec.bind;
    if (spec.host) draft.host = spec.host;
    if (spec.hostPort !== undefined) draft.hostPort = spec.hostPort;
    if (editing) draft.id = editing;
    return { draft, problems };
  };

  const resetForm = () => {
    editing = null;
    kindSel.value = 'local';
    for (const i of Object.values(inputs)) i.value = '';
    showProblems([]);
    paintForm();
  };

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    formStatus.textContent = '';
    const { draft, problems } = readForm();
    showProblems(problems);
    if (!draft) return;
    api.call('tunnels.save', draft).then(
      async () => {
        resetForm();
        formStatus.textContent = t('saved');
        await load();
      },
      (err: AppErrorData) => {
        const d = detailsAs(err, TunnelErrorDetailsSchema);
        if (d?.running) formStatus.textContent = t('stopFirst');
        else if (d?.problems?.length) showProblems(d.problems);
        else formStatus.textContent = errorText(err, undefined);
      },
    );
  });
  kindSel.addEventListener('change', () => {
    showProblems([]);
    paintForm();
  });

  const edit = (tn: SavedTunnel) => {
    if (status.get(tn.id) && !['stopped', 'failed'].includes(status.get(tn.id)!.state)) {
      listStatus.textContent = t('stopFirst');
      return;
    }
    editing = tn.id;
    instanceSel.value = `${tn.instanceId} ${tn.region}`;
    if (!instances.some((i) => i.id === tn.instanceId)) {
      instances = [...instances, { id: tn.instanceId, region: tn.region, name: tn.label } as Instance];
    }
    kindSel.value = tn.kind;
    inputs.bind.value = tn.bind ?? '';
    inputs.port.value = String(tn.port);
    inputs.host.value = tn.host ?? '';
    inputs.hostPort.value = tn.hostPort !== undefined ? String(tn.hostPort) : '';
    showProblems([]);
    paintForm();
    instanceSel.value = `${tn.instanceId} ${tn.region}`;
    inputs.port.focus();
  };

  const copy = async (address: string) => {
    try {
      await navigator.clipboard.writeText(address);
      listStatus.textContent = t('copied', { address });
    } catch {
      listStatus.textContent = t('copyFailed');
    }
  };

  const rows = new Map<string, HTMLTableRowElement>();

  const paintRow = (tn: SavedTunnel) => {
    const st = status.get(tn.id) ?? { id: tn.id, state: 'stopped' as const, address: null, bytesIn: 0, bytesOut: 0, active: 0, error: null };
    const running = st.state !== 'stopped' && st.state !== 'failed';
    const address = st.address;
    const row = rows.get(tn.id) ?? h('tr', { 'data-tunnel': tn.id });
    rows.set(tn.id, row);
    row.dataset.state = st.state;
    const startStop = h('button', {
      class: running ? 'btn' : 'btn primary',
      type: 'button',
      text: t(running ? 'stop' : 'start'),
      onclick: () => {
        listStatus.textContent = '';
        if (running) void api.call('tunnels.stop', { id: tn.id }).then((s) => update(s));
        else {
          update({ ...st, state: 'connecting', error: null });
          api.call('tunnels.start', { id: tn.id }).then(
            (s) => update(s),
            (err: AppErrorData) => update({ ...st, state: 'failed', error: err }),
          );
        }
      },
    });
    const copyBtn = h('button', {
      class: 'btn',
      type: 'button',
      text: t('copy'),
      disabled: !(running && address && tn.kind !== 'remote'),
      onclick: () => address && void copy(address),
    });
    const editBtn = h('button', { class: 'btn', type: 'button', text: t('edit'), onclick: () => edit(tn) });
    const removeBtn = h('button', {
      class: 'btn danger',
      type: 'button',
      text: t('remove'),
      onclick: async () => {
        const ok = await confirmDialog({
          title: t('removeTitle'),
          body: t('removeBody', { tunnel: describeTunnel(tn, null), instance: tn.label }),
          confirm: t('removeConfirm'),
          danger: true,
        });
        if (!ok) return;
        await api.call('tunnels.remove', { id: tn.id });
        await load();
      },
    });
    const stateCell = h('td', { class: 'tunnel-state' }, h('span', { class: `state state-${st.state}`, text: t(STATE_WORD[st.state]) }));
    if (st.error) stateCell.append(h('p', { class: 'tunnel-error', role: 'alert', text: errorText(st.error, tn) }));
    row.replaceChildren(
      h('td', { class: 'tunnel-instance', text: tn.label }),
      h('td', { class: 'tunnel-desc' }, h('code', { text: describeTunnel(tn, running ? address : null) })),
      stateCell,
      h('td', { class: 'tunnel-traffic', text: t('traffic', { in: formatBytes(st.bytesIn), out: formatBytes(st.bytesOut) }) }),
      h('td', { class: 'tunnel-actions' }, startStop, copyBtn, editBtn, removeBtn),
    );
  };

  const update = (s: TunnelStatusPayload) => {
    status.set(s.id, s);
    const tn = tunnels.find((x) => x.id === s.id);
    if (tn) paintRow(tn);
  };

  const paintList = () => {
    heading.textContent = t('heading');
    intro.textContent = t('intro');
    empty.textContent = t('listEmpty');
    empty.hidden = tunnels.length > 0;
    table.hidden = tunnels.length === 0;
    const head = h(
      'tr',
      {},
      ...(['colInstance', 'colTunnel', 'colState', 'colTraffic', 'colActions'] as const).map((c) => h('th', { scope: 'col', text: t(c) })),
    );
    for (const id of [...rows.keys()]) if (!tunnels.some((x) => x.id === id)) rows.delete(id);
    for (const tn of tunnels) paintRow(tn);
    table.replaceChildren(h('thead', {}, head), h('tbody', {}, ...tunnels.map((tn) => rows.get(tn.id)!)));
  };

  const load = async () => {
    const r = await api.call('tunnels.list', {});
    tunnels = r.tunnels;
    for (const s of r.status) status.set(s.id, s);
    paintList();
  };

  api.on('tunnels.status', (s) => update(s));
  onLocaleChange(() => {
    paintForm();
    paintList();
  });
  paintForm();
  paintList();

  return {
    el,
    tabLabel: () => t('tab'),
    async refresh() {
      try {
        instances = (await deps.instances()).slice().sort((a, b) => (a.name ?? a.id).localeCompare(b.name ?? b.id));
      } catch {
        // the list shows its own problem; tunnels to saved instances still work
      }
      paintForm();
      try {
        await load();
      } catch (e) {
        listStatus.textContent = errorText(e as AppErrorData, undefined);
      }
    },
  };
}
