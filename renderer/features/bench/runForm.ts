import type { Instance } from '../../../src/common/model/instance.js';
import type { PresetInfo } from '../../../src/common/bench/contract.js';
import type { RepeatPlan } from '../../../src/common/bench/repeat.js';
import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import { t } from './messages.js';
import { createParamForm, FILE_PARAM, type ParamForm } from './paramForm.js';
import { presetDescription, presetTitle } from './presetWords.js';
import { createRepeatForm } from './repeatForm.js';
import { refOf, renderHosts } from './hostPicker.js';
import type { FormProblem } from './formError.js';

// The Benchmarks view's run form: the preset, the instances to run on (and the peer of a pair),
// the preset's parameters, how often to repeat, and whether to trust new host keys. It says what
// is missing; the script preview and the run itself are the view's.

type Ref = ReturnType<typeof refOf>;
type Tarball = { name: string; base64: string; size: number };

/** A run the form is ready for, read before the script is previewed and the run confirmed. */
interface RunAsk {
  preset: PresetInfo;
  hosts: Ref[];
  values: ReturnType<ParamForm['values']>;
  matrix: ReturnType<ParamForm['matrix']>;
  tarball: Tarball | undefined;
  plan: RepeatPlan | undefined;
}

interface RunFormDeps {
  store: Disposables;
  /** A field changed: preview the script again. */
  changed(): void;
  /** Says a problem under the form (null clears it). */
  say(problem: FormProblem | null): void;
}

/** The picked tarball as base64, for the run call. */
async function readTarball(file: File | null | undefined): Promise<Tarball | undefined> {
  if (!file) return undefined;
  const bytes = new Uint8Array(await file.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { name: file.name, base64: btoa(bin), size: file.size };
}

export class RunForm {
  readonly params: ParamForm;
  /** The form's fields, in the order the view shows them. */
  readonly parts: HTMLElement[];
  private presets: PresetInfo[] = [];
  private instances: Instance[] = [];
  private readonly presetSel = h('select', { class: 'picker', 'data-testid': 'bench-preset' });
  private readonly presetDesc = h('p', { class: 'bench-help' });
  private readonly hostList = h('div', { class: 'bench-hosts', role: 'group' });
  private readonly peerSel = h('select', { class: 'picker', 'data-testid': 'bench-peer' });
  private readonly peerRow: HTMLElement;
  private readonly repeat = createRepeatForm(() => this.deps.say(null));
  private readonly acceptNew = h('input', { type: 'checkbox', id: 'bench-accept-new', 'data-testid': 'bench-accept-new' });

  constructor(private readonly deps: RunFormDeps) {
    const { store } = deps;
    this.params = createParamForm({
      changed: () => deps.changed(),
      tooManyValues: (max) => deps.say({ key: 'tooManyValues', params: { max: String(max) } }),
    });
    const words = { preset: h('span'), instances: h('span'), peer: h('span'), acceptNew: h('label', { for: 'bench-accept-new' }) };
    bindText(store, words.preset, () => t('preset'));
    bindText(store, words.instances, () => t('instances'));
    bindText(store, words.peer, () => t('peer'));
    bindText(store, words.acceptNew, () => t('acceptNew'));
    bindAttr(store, this.presetSel, 'aria-label', () => t('preset'));
    bindAttr(store, this.hostList, 'aria-label', () => t('instancesGroup'));
    bindAttr(store, this.peerSel, 'aria-label', () => t('peer'));
    this.peerRow = h('label', { class: 'bench-field', hidden: true }, words.peer, this.peerSel);
    this.parts = [
      h('label', { class: 'bench-field' }, words.preset, this.presetSel),
      this.presetDesc,
      h('div', { class: 'bench-field' }, words.instances, this.hostList),
      this.peerRow,
      this.params.el,
      this.repeat.el,
      h('div', { class: 'bench-check' }, this.acceptNew, words.acceptNew),
    ];
    onWords(store, () => this.paintWords());
    store.listen(this.presetSel, 'change', () => this.renderFields());
  }

  /** Whether the presets were read (they are read once). */
  get hasPresets(): boolean {
    return this.presets.length > 0;
  }

  preset(): PresetInfo | undefined {
    return this.presets.find((p) => p.id === this.presetSel.value);
  }

  /** The presets to offer (once, when the view first opens); the first one's fields follow. */
  setPresets(presets: PresetInfo[]): void {
    this.presets = presets;
    this.presetSel.replaceChildren(...presets.map((p) => h('option', { value: p.id })));
    this.paintWords();
    this.renderFields();
  }

  /** The instances the app knows; the running ones are offered. */
  setInstances(instances: Instance[]): void {
    this.instances = instances;
    this.showHosts();
  }

  showHosts(): void {
    renderHosts(this.hostList, this.peerSel, this.instances);
  }

  /** What to run, or undefined once the missing piece is said (nothing is said without a preset). */
  async ask(): Promise<RunAsk | undefined> {
    const p = this.preset();
    if (!p) return undefined;
    const hosts = [...this.hostList.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => refOf(i.value));
    if (!hosts.length) return this.problem({ key: 'pickInstance' });
    if (p.pair && !this.peerSel.value) return this.problem({ key: 'pickPeer' });
    const values = this.params.values();
    const matrix = this.params.matrix();
    const uploading = p.params.some((x) => x.name === FILE_PARAM) && values.source === 'upload';
    const tarball = uploading ? await readTarball(this.params.file()) : undefined;
    if (uploading && !tarball) return this.problem({ key: 'pickTarball', params: { field: FILE_PARAM } });
    const wanted = this.repeat.plan();
    if (wanted.error) return this.problem({ text: wanted.error });
    return { preset: p, hosts, values, matrix, tarball, plan: wanted.plan };
  }

  /** The run call's input; the peer and the host-key choice as they stand when the run starts. */
  runInput(ask: RunAsk, confirmed: boolean, batchId: string) {
    const { preset: p, matrix, tarball, plan } = ask;
    return {
      preset: p.id,
      params: ask.values,
      ...(matrix ? { matrix } : {}),
      instances: ask.hosts,
      ...(p.pair ? { peer: refOf(this.peerSel.value) } : {}),
      confirmed,
      acceptNew: this.acceptNew.checked,
      batchId,
      ...(plan ? { repeat: plan } : {}),
      ...(tarball ? { tarball: { name: tarball.name, base64: tarball.base64 } } : {}),
    };
  }

  private problem(problem: FormProblem): undefined {
    this.deps.say(problem);
    return undefined;
  }

  private renderFields(): void {
    const p = this.preset();
    if (p) {
      this.presetDesc.textContent = presetDescription(p);
      this.peerRow.hidden = !p.pair;
    }
    this.params.render(p);
  }

  /** The words that depend on the presets: their names, the description, the fields' help. */
  private paintWords(): void {
    for (const o of this.presetSel.options) {
      const p = this.presets.find((x) => x.id === o.value);
      if (p) o.textContent = p.pair ? t('presetPair', { title: presetTitle(p) }) : presetTitle(p);
    }
    this.repeat.words();
    const p = this.preset();
    if (p) this.presetDesc.textContent = presetDescription(p);
    this.params.words(p);
  }
}
