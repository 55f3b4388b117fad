import type { AppErrorData } from '../../../src/common/errors.js';
import type { Instance } from '../../../src/common/model/instance.js';
import { TunnelErrorDetailsSchema, type SavedTunnel, type TunnelStatusPayload } from '../../../src/common/tunnels/contract.js';
import { detailsAs } from '../../../src/common/errorDetails.js';
import { bindableTags, carriesTag, instancesFor, tagText, type TunnelTag } from '../../../src/common/tunnels/binding.js';
import {
  DEFAULT_BIND,
  formatAddress,
  formatHost,
  tunnelProblems,
  type TunnelField,
  type TunnelKind,
  type TunnelProblem,
  type TunnelSpec,
} from '../../../src/common/tunnels/spec.js';
import type { Api } from '../../lib/api.js';
import { confirmDialog } from '../../lib/dialog.js';
import { h } from '../../lib/dom.js';
import { describeError } from '../../i18n/errors.js';
import { getLocale, onLocaleChange } from '../../i18n/index.js';
import { t, type TunnelWord } from './messages.js';
import './tunnels.css';

// The Tunnels tab: saved tunnels per instance or per tag (add, edit, delete), start/stop, state,
// bytes and the address to copy. A tag tunnel has a row under every listed instance with the tag,
// each started and stopped on its own. Tunnels run in the engine, so this view only shows and steers them; a
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

/**
 * Where a tunnel listens: the live address while it runs, else the saved one; a saved port 0 is
 * "any free port" until the tunnel is started and the system picks one (never ":0").
 */
function listenText(tn: SavedTunnel, address: string | null): string {
  if (address) return address;
  const bind = tn.bind ?? DEFAULT_BIND;
  if (tn.port === 0 && tn.kind !== 'remote') return t('anyFreePort', { bind: formatHost(bind) });
  return formatAddress(bind, tn.port);
}

/** "127.0.0.1:8080 → db:5432" in the app's words, from the saved spec and the live address. */
function describeTunnel(tn: SavedTunnel, address: string | null): string {
  const where = listenText(tn, address);
  if (tn.kind === 'dynamic') return t('socks', { address: where });
  const dest = formatAddress(tn.host ?? '', tn.hostPort ?? 0);
  return t(tn.kind === 'local' ? 'localDesc' : 'remoteDesc', { address: where, dest });
}

/** Which run a row or status is: the tunnel, and for a tag tunnel the instance it runs on. */
const runKey = (id: string, instanceId: string | undefined) => `${id} ${instanceId ?? ''}`;

function errorText(err: AppErrorData, tn: SavedTunnel | undefined, nameOf: (instanceId: string) => string = (id) => id): string {
  const d = detailsAs(err, TunnelErrorDetailsSchema);
  if (tn && d?.problem === 'tagPortTaken' && d.instanceId) return t('listen_tagPortTaken', { port: tn.port, instance: nameOf(d.instanceId) });
  if (tn?.tag && d?.problem === 'tagMissing' && d.instanceId) return t('tagMissing', { instance: nameOf(d.instanceId), tag: tagText(tn.tag) });
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
  /** The form's status line says there are no instances yet. */
  let noInstancesShown = false;
  // What each status line says, kept as words to look up, so a language switch says it again.
  const said = new Map<HTMLElement, () => string>();
  const say = (line: HTMLElement, words: (() => string) | null) => {
    if (words) said.set(line, words);
    else said.delete(line);
    line.textContent = words ? words() : '';
  };

  const el = h('section', { class: 'tunnels-view', 'aria-labelledby': 'tunnels-heading' });
  const heading = h('h2', { id: 'tunnels-heading' });
  const intro = h('p', { class: 'muted' });

  // ---- form ----
  const legend = h('legend');
  const instanceSel = h('select', { id: 'tunnel-instance' });
  const scopeSel = h('select', { id: 'tunnel-scope' });
  /** The tags offered in "Applies to", in option order (option value = index). */
  let scopeTags: TunnelTag[] = [];
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
    scope: h('label', { for: 'tunnel-scope' }),
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
      field(labels.scope, scopeSel),
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
  const selectedInstance = (): Instance | undefined => {
    const [instanceId, region] = instanceSel.value.split(' ');
    return instances.find((i) => i.id === instanceId && i.region === region);
  };
  const nameOf = (instanceId: string) => {
    const inst = instances.find((i) => i.id === instanceId);
    return inst?.name ?? instanceId;
  };

  /** "Only this instance", then one "every instance tagged K=V" per tag of the chosen instance (and the one being edited). */
  const paintScope = (keepTag?: TunnelTag) => {
    const current = keepTag ?? (scopeSel.value && scopeSel.value !== 'instance' ? scopeTags[Number(scopeSel.value)] : undefined);
    const inst = selectedInstance();
    scopeTags = inst ? bindableTags(inst) : [];
    if (current && !scopeTags.some((x) => x.key === current.key && x.value === current.value)) scopeTags.push(current);
    scopeSel.replaceChildren(
      h('option', { value: 'instance', text: t('scopeInstance') }),
      ...scopeTags.map((x, i) => h('option', { value: String(i), text: t('scopeTag', { tag: tagText(x) }) })),
    );
    const at = current ? scopeTags.findIndex((x) => x.key === current.key && x.value === current.value) : -1;
    scopeSel.value = at >= 0 ? String(at) : 'instance';
  };

  const paintForm = () => {
    const kind = kindNow();
    legend.textContent = t(editing ? 'formEdit' : 'formAdd');
    labels.instance.textContent = t('instance');
    labels.scope.textContent = t('scope');
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
    paintScope();
    instanceSel.disabled = instances.length === 0;
    // The hint goes once the list has instances; other lines (Saved, an error) stay.
    if (instances.length === 0) say(formStatus, () => t('instanceNone'));
    else if (noInstancesShown) say(formStatus, null);
    noInstancesShown = instances.length === 0;
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
    const inst = selectedInstance();
    const tag = scopeSel.value === 'instance' ? undefined : scopeTags[Number(scopeSel.value)];
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
    if ((!inst && !tag) || problems.length) return { draft: null, problems };
    const draft: Draft = tag
      ? { tag, label: tagText(tag), kind, port: spec.port }
      : { instanceId: inst!.id, region: inst!.region, label: inst!.name ?? inst!.id, kind, port: spec.port };
    if (spec.bind !== undefined) draft.bind = spec.bind;
    if (spec.host) draft.host = spec.host;
    if (spec.hostPort !== undefined) draft.hostPort = spec.hostPort;
    if (editing) draft.id = editing;
    return { draft, problems };
  };

  const resetForm = () => {
    editing = null;
    kindSel.value = 'local';
    scopeSel.value = 'instance';
    for (const i of Object.values(inputs)) i.value = '';
    showProblems([]);
    paintForm();
  };

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    say(formStatus, null);
    const { draft, problems } = readForm();
    showProblems(problems);
    if (!draft) return;
    api.call('tunnels.save', draft).then(
      async () => {
        resetForm();
        say(formStatus, () => t('saved'));
        await load();
      },
      (err: AppErrorData) => {
        const d = detailsAs(err, TunnelErrorDetailsSchema);
        if (d?.running) say(formStatus, () => t('stopFirst'));
        else if (d?.problems?.length) showProblems(d.problems);
        else say(formStatus, () => errorText(err, undefined));
      },
    );
  });
  instanceSel.addEventListener('change', () => paintScope());
  kindSel.addEventListener('change', () => {
    showProblems([]);
    paintForm();
  });

  const isRunning = (s: TunnelStatusPayload | undefined) => !!s && s.state !== 'stopped' && s.state !== 'failed';

  const edit = (tn: SavedTunnel) => {
    if ([...status.values()].some((s) => s.id === tn.id && isRunning(s))) {
      say(listStatus, () => t('stopFirst'));
      return;
    }
    editing = tn.id;
    // A tag tunnel is edited from an instance that carries the tag (its tags fill "Applies to").
    const home = tn.tag ? instances.find((i) => carriesTag(i, tn.tag!)) : instances.find((i) => i.id === tn.instanceId && i.region === tn.region);
    if (!home && !tn.tag && tn.instanceId && tn.region) {
      instances = [...instances, { id: tn.instanceId, region: tn.region, name: tn.label, tags: {} } as Instance];
    }
    const where = home ? `${home.id} ${home.region}` : `${tn.instanceId} ${tn.region}`;
    kindSel.value = tn.kind;
    inputs.bind.value = tn.bind ?? '';
    inputs.port.value = String(tn.port);
    inputs.host.value = tn.host ?? '';
    inputs.hostPort.value = tn.hostPort !== undefined ? String(tn.hostPort) : '';
    showProblems([]);
    paintForm();
    instanceSel.value = where;
    if (!tn.tag) scopeSel.value = 'instance';
    paintScope(tn.tag);
    inputs.port.focus();
  };

  const copy = async (address: string) => {
    try {
      await navigator.clipboard.writeText(address);
      say(listStatus, () => t('copied', { address }));
    } catch {
      say(listStatus, () => t('copyFailed'));
    }
  };

  const rows = new Map<string, HTMLTableRowElement>();

  /** A tunnel's rows: one for an instance tunnel; for a tag tunnel one per listed instance with the tag. */
  const placesOf = (tn: SavedTunnel): Array<{ key: string; inst: Instance | undefined }> => {
    if (!tn.tag) return [{ key: runKey(tn.id, undefined), inst: undefined }];
    const found = instancesFor(tn, instances);
    return found.length ? found.map((inst) => ({ key: runKey(tn.id, inst.id), inst })) : [{ key: runKey(tn.id, '-'), inst: undefined }];
  };

  const paintRow = (tn: SavedTunnel, key: string, inst: Instance | undefined) => {
    const st = status.get(key) ?? {
      id: tn.id,
      ...(inst ? { instanceId: inst.id } : {}),
      state: 'stopped' as const,
      address: null,
      bytesIn: 0,
      bytesOut: 0,
      active: 0,
      error: null,
    };
    const running = isRunning(st);
    const address = st.address;
    // A tag with no listed instance: nothing to start until one appears in the Instances tab.
    const homeless = !!tn.tag && !inst;
    const row = rows.get(key) ?? h('tr', { 'data-tunnel': tn.id });
    rows.set(key, row);
    if (inst) row.dataset.instance = inst.id;
    row.dataset.state = st.state;
    const ref = inst ? { id: tn.id, instanceId: inst.id, region: inst.region } : { id: tn.id };
    const startStop = h('button', {
      class: running ? 'btn' : 'btn primary',
      type: 'button',
      text: t(running ? 'stop' : 'start'),
      hidden: homeless,
      onclick: () => {
        say(listStatus, null);
        if (running) void api.call('tunnels.stop', ref).then((s) => update(s));
        else {
          update({ ...st, state: 'connecting', error: null });
          api.call('tunnels.start', ref).then(
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
        const tunnel = describeTunnel(tn, null);
        const ok = await confirmDialog({
          title: t('removeTitle'),
          body: tn.tag ? t('removeBodyTag', { tunnel, tag: tagText(tn.tag) }) : t('removeBody', { tunnel, instance: tn.label }),
          confirm: t('removeConfirm'),
          danger: true,
        });
        if (!ok) return;
        await api.call('tunnels.remove', { id: tn.id });
        await load();
      },
    });
    const stateCell = h('td', { class: 'tunnel-state' }, h('span', { class: `state state-${st.state}`, text: t(STATE_WORD[st.state]) }));
    if (homeless) stateCell.append(h('p', { class: 'muted tunnel-note', text: t('tagNoInstance', { tag: tagText(tn.tag!) }) }));
    if (st.error) stateCell.append(h('p', { class: 'tunnel-error', role: 'alert', text: errorText(st.error, tn, nameOf) }));
    const instanceCell = h('td', { class: 'tunnel-instance', text: tn.tag ? (inst ? (inst.name ?? inst.id) : '—') : tn.label });
    if (tn.tag) instanceCell.append(' ', h('small', { class: 'tunnel-tag', text: t('tagBadge', { tag: tagText(tn.tag) }) }));
    row.replaceChildren(
      instanceCell,
      h('td', { class: 'tunnel-desc' }, h('code', { text: describeTunnel(tn, running ? address : null) })),
      stateCell,
      h('td', { class: 'tunnel-traffic', text: t('traffic', { in: formatBytes(st.bytesIn), out: formatBytes(st.bytesOut) }) }),
      h('td', { class: 'tunnel-actions' }, startStop, copyBtn, editBtn, removeBtn),
    );
  };

  const update = (s: TunnelStatusPayload) => {
    const key = runKey(s.id, s.instanceId);
    status.set(key, s);
    const tn = tunnels.find((x) => x.id === s.id);
    const place = tn && placesOf(tn).find((p) => p.key === key);
    if (tn && place) paintRow(tn, place.key, place.inst);
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
    const places = tunnels.flatMap((tn) => placesOf(tn).map((p) => ({ tn, ...p })));
    for (const key of [...rows.keys()]) if (!places.some((p) => p.key === key)) rows.delete(key);
    for (const p of places) paintRow(p.tn, p.key, p.inst);
    table.replaceChildren(h('thead', {}, head), h('tbody', {}, ...places.map((p) => rows.get(p.key)!)));
  };

  const load = async () => {
    const r = await api.call('tunnels.list', {});
    tunnels = r.tunnels;
    // The list names every run that is up or failed; any other is stopped.
    status.clear();
    for (const s of r.status) status.set(runKey(s.id, s.instanceId), s);
    paintList();
  };

  api.on('tunnels.status', (s) => update(s));
  onLocaleChange(() => {
    paintForm();
    paintList();
    for (const [line, words] of said) line.textContent = words();
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
        say(listStatus, () => errorText(e as AppErrorData, undefined));
      }
    },
  };
}
