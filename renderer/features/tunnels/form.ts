import type { AppErrorData } from '../../../src/common/errors.js';
import type { Instance } from '../../../src/common/model/instance.js';
import { TunnelErrorDetailsSchema, type SavedTunnel } from '../../../src/common/tunnels/contract.js';
import { detailsAs } from '../../../src/common/errorDetails.js';
import { bindableTags, carriesTag, tagText, type TunnelTag } from '../../../src/common/tunnels/binding.js';
import { tunnelProblems, type TunnelField, type TunnelKind, type TunnelProblem, type TunnelSpec } from '../../../src/common/tunnels/spec.js';
import type { Api } from '../../lib/api.js';
import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import type { Observable } from '../../lib/observable.js';
import { bindText, onWords, statusLine } from '../../lib/words.js';
import { errorText, KINDS, problemWord } from './describe.js';
import { t } from './messages.js';

// The Tunnels tab's form: add a tunnel or edit a saved one, for one instance or for every instance
// with a tag. Fields are checked with the same rules as `tagssh tunnel` (src/common/tunnels/spec.ts),
// worded here in the app's own terms; the engine has the last word when saving.

interface TunnelFormDeps {
  api: Api;
  store: Disposables;
  /** The instances to choose from, sorted; editing a tunnel of an unlisted instance adds it. */
  instances: Observable<Instance[]>;
  /** A tunnel was saved: read the list again (never rejects: the list says its own problem). */
  saved(): Promise<void>;
}

type Draft = Omit<SavedTunnel, 'id'> & { id?: string };

const FIELD_IDS: Record<TunnelField, string> = { bind: 'tunnel-bind', port: 'tunnel-port', host: 'tunnel-host', hostPort: 'tunnel-hostport' };

const numberOf = (s: string): number => (/^\s*\d{1,5}\s*$/.test(s) ? Number(s) : NaN);

/** The form's elements, each label worded once (the ones that follow the kind are worded by the form). */
function formParts(store: Disposables) {
  const input = (f: TunnelField, numeric: boolean) =>
    h('input', { id: FIELD_IDS[f], type: 'text', autocomplete: 'off', ...(numeric ? { inputmode: 'numeric' } : { spellcheck: 'false' }) });
  const inputs: Record<TunnelField, HTMLInputElement> = {
    bind: input('bind', false),
    port: input('port', true),
    host: input('host', false),
    hostPort: input('hostPort', true),
  };
  const err = (f: TunnelField) => h('p', { class: 'field-error', id: `${FIELD_IDS[f]}-error` });
  const errs: Record<TunnelField, HTMLElement> = { bind: err('bind'), port: err('port'), host: err('host'), hostPort: err('hostPort') };
  for (const f of Object.keys(inputs) as TunnelField[]) inputs[f].setAttribute('aria-describedby', errs[f].id);
  const label = (forId: string, word?: Parameters<typeof t>[0]) => {
    const el = h('label', { for: forId });
    if (word) bindText(store, el, () => t(word));
    return el;
  };
  const labels = {
    instance: label('tunnel-instance', 'instance'),
    scope: label('tunnel-scope', 'scope'),
    kind: label('tunnel-kind', 'kind'),
    bind: label('tunnel-bind', 'bind'),
    port: label('tunnel-port'),
    host: label('tunnel-host', 'host'),
    hostPort: label('tunnel-hostport', 'hostPort'),
  };
  const instanceSel = h('select', { id: 'tunnel-instance' });
  const scopeSel = h('select', { id: 'tunnel-scope' });
  const kindSel = h('select', { id: 'tunnel-kind' });
  const saveBtn = h('button', { class: 'btn primary', type: 'submit' });
  bindText(store, saveBtn, () => t('save'));
  const cancelBtn = h('button', { class: 'btn', type: 'button', hidden: true });
  bindText(store, cancelBtn, () => t('cancelEdit'));
  return {
    inputs,
    errs,
    labels,
    instanceSel,
    scopeSel,
    kindSel,
    saveBtn,
    cancelBtn,
    legend: h('legend'),
    status: h('p', { class: 'form-status', role: 'status' }),
  };
}

export class TunnelForm {
  readonly el: HTMLFormElement;
  private readonly p: ReturnType<typeof formParts>;
  private readonly say: (words: (() => string) | null) => void;
  private readonly hostFields: HTMLElement[];
  private editing: string | null = null;
  /** The form's status line says there are no instances yet. */
  private noInstancesShown = false;
  /** The tags offered in "Applies to", in option order (option value = index). */
  private scopeTags: TunnelTag[] = [];

  constructor(private readonly deps: TunnelFormDeps) {
    const { store } = deps;
    const p = (this.p = formParts(store));
    const { inputs, errs, labels } = p;
    this.say = statusLine(store, p.status);
    const field = (label: HTMLElement, control: HTMLElement, err?: HTMLElement) => h('div', { class: 'field' }, label, control, err);
    this.hostFields = [field(labels.host, inputs.host, errs.host), field(labels.hostPort, inputs.hostPort, errs.hostPort)];
    this.el = h(
      'form',
      { class: 'tunnel-form', novalidate: true },
      h(
        'fieldset',
        {},
        p.legend,
        field(labels.instance, p.instanceSel),
        field(labels.scope, p.scopeSel),
        field(labels.kind, p.kindSel),
        field(labels.bind, inputs.bind, errs.bind),
        field(labels.port, inputs.port, errs.port),
        ...this.hostFields,
        h('div', { class: 'actions' }, p.saveBtn, p.cancelBtn),
      ),
      p.status,
    );
    store.listen(this.el, 'submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    store.listen(p.cancelBtn, 'click', () => this.reset());
    store.listen(p.instanceSel, 'change', () => this.paintScope());
    store.listen(p.kindSel, 'change', () => {
      this.showProblems([]);
      this.paint();
    });
    onWords(store, () => this.paint());
  }

  /** The words that follow the kind, the choices, and the no-instances hint. */
  paint(): void {
    const { p } = this;
    const kind = this.kind();
    const list = this.deps.instances.value;
    p.legend.textContent = t(this.editing ? 'formEdit' : 'formAdd');
    p.labels.port.textContent = t(kind === 'remote' ? 'portRemote' : 'port');
    p.inputs.bind.placeholder = t(kind === 'remote' ? 'bindRemotePh' : 'bindPh');
    p.inputs.host.placeholder = t(kind === 'remote' ? 'hostRemotePh' : 'hostPh');
    for (const f of this.hostFields) f.hidden = kind === 'dynamic';
    p.cancelBtn.hidden = !this.editing;
    const keep = p.kindSel.value || 'local';
    p.kindSel.replaceChildren(...KINDS.map(([k, w]) => h('option', { value: k, text: t(w) })));
    p.kindSel.value = keep;
    const keepInst = p.instanceSel.value;
    p.instanceSel.replaceChildren(...list.map((i) => h('option', { value: `${i.id} ${i.region}`, text: i.name ? `${i.name} (${i.id})` : i.id })));
    if (keepInst) p.instanceSel.value = keepInst;
    this.paintScope();
    p.instanceSel.disabled = list.length === 0;
    // The hint goes once the list has instances; other lines (Saved, an error) stay.
    if (list.length === 0) this.say(() => t('instanceNone'));
    else if (this.noInstancesShown) this.say(null);
    this.noInstancesShown = list.length === 0;
  }

  /** Fills the form with a saved tunnel (the caller made sure it is not running). */
  edit(tn: SavedTunnel): void {
    const { p, deps } = this;
    this.editing = tn.id;
    const list = deps.instances.value;
    // A tag tunnel is edited from an instance that carries the tag (its tags fill "Applies to").
    const home = tn.tag ? list.find((i) => carriesTag(i, tn.tag!)) : list.find((i) => i.id === tn.instanceId && i.region === tn.region);
    if (!home && !tn.tag && tn.instanceId && tn.region)
      deps.instances.set([...list, { id: tn.instanceId, region: tn.region, name: tn.label, tags: {} } as Instance]);
    const where = home ? `${home.id} ${home.region}` : `${tn.instanceId} ${tn.region}`;
    p.kindSel.value = tn.kind;
    p.inputs.bind.value = tn.bind ?? '';
    p.inputs.port.value = String(tn.port);
    p.inputs.host.value = tn.host ?? '';
    p.inputs.hostPort.value = tn.hostPort !== undefined ? String(tn.hostPort) : '';
    this.showProblems([]);
    this.paint();
    p.instanceSel.value = where;
    if (!tn.tag) p.scopeSel.value = 'instance';
    this.paintScope(tn.tag);
    p.inputs.port.focus();
  }

  private kind(): TunnelKind {
    return this.p.kindSel.value as TunnelKind;
  }

  private selectedInstance(): Instance | undefined {
    const [instanceId, region] = this.p.instanceSel.value.split(' ');
    return this.deps.instances.value.find((i) => i.id === instanceId && i.region === region);
  }

  /** "Only this instance", then one "every instance tagged K=V" per tag of the chosen instance (and the one being edited). */
  private paintScope(keepTag?: TunnelTag): void {
    const { scopeSel } = this.p;
    const current = keepTag ?? (scopeSel.value && scopeSel.value !== 'instance' ? this.scopeTags[Number(scopeSel.value)] : undefined);
    const inst = this.selectedInstance();
    const tags = (this.scopeTags = inst ? bindableTags(inst) : []);
    if (current && !tags.some((x) => x.key === current.key && x.value === current.value)) tags.push(current);
    scopeSel.replaceChildren(
      h('option', { value: 'instance', text: t('scopeInstance') }),
      ...tags.map((x, i) => h('option', { value: String(i), text: t('scopeTag', { tag: tagText(x) }) })),
    );
    const at = current ? tags.findIndex((x) => x.key === current.key && x.value === current.value) : -1;
    scopeSel.value = at >= 0 ? String(at) : 'instance';
  }

  private showProblems(problems: TunnelProblem[]): void {
    const { inputs, errs } = this.p;
    for (const f of Object.keys(errs) as TunnelField[]) {
      errs[f].textContent = '';
      inputs[f].removeAttribute('aria-invalid');
    }
    for (const x of problems) {
      if (errs[x.field].textContent) continue;
      errs[x.field].textContent = t(problemWord(x, this.kind()));
      inputs[x.field].setAttribute('aria-invalid', 'true');
    }
    const first = problems[0];
    if (first) inputs[first.field].focus();
  }

  /** The form as a draft, and its problems by the shared rules. */
  private read(): { draft: Draft | null; problems: TunnelProblem[] } {
    const { inputs, scopeSel } = this.p;
    const inst = this.selectedInstance();
    const tag = scopeSel.value === 'instance' ? undefined : this.scopeTags[Number(scopeSel.value)];
    const kind = this.kind();
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
    if (this.editing) draft.id = this.editing;
    return { draft, problems };
  }

  private reset(): void {
    const { p } = this;
    this.editing = null;
    p.kindSel.value = 'local';
    p.scopeSel.value = 'instance';
    for (const i of Object.values(p.inputs)) i.value = '';
    this.showProblems([]);
    this.paint();
  }

  private submit(): void {
    this.say(null);
    const { draft, problems } = this.read();
    this.showProblems(problems);
    if (!draft) return;
    this.deps.api.call('tunnels.save', draft).then(
      async () => {
        this.reset();
        // Said once the list has been read again, so that the list already shows what was saved.
        await this.deps.saved();
        this.say(() => t('saved'));
      },
      (err: AppErrorData) => {
        const d = detailsAs(err, TunnelErrorDetailsSchema);
        if (d?.running) this.say(() => t('stopFirst'));
        else if (d?.problems?.length) this.showProblems(d.problems);
        else this.say(() => errorText(err, undefined));
      },
    );
  }
}
