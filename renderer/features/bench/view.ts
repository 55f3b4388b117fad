import type { Instance } from '../../../src/common/model/instance.js';
import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { toAppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText } from '../../lib/words.js';
import type { SettingsField } from '../settings/view.js';
import { onLocaleChange } from '../../i18n/index.js';
import { BatchRun } from './batchRun.js';
import { createFormError } from './formError.js';
import { t } from './messages.js';
import { ResultList } from './resultList.js';
import { confirmRun } from './runConfirm.js';
import { RunForm } from './runForm.js';
import { ScriptPreview } from './scriptPreview.js';
import './bench.css';

// The Benchmarks view: pick instances and a preset, set parameters (defaults from the preset
// schema), see the exact script before it runs, confirm anything that installs, writes, uploads
// or needs sudo, follow progress live, open any result for its details and raw output, pick
// results and compare them in a table (relative difference to a baseline) and a bar chart, and
// export CSV/Markdown/JSON. Every word comes from messages.ts and follows the locale. Each part is
// its own module (runForm, scriptPreview, batchRun, resultList); this one wires them together.

interface BenchDeps {
  api: Api;
  /** Instances the app knows (the Instances view's list). */
  instances(): Promise<Instance[]>;
  /** Opens the Settings tab at a field (offered when a run failed on the key or login user). */
  openSettings(field: SettingsField): void;
}

interface BenchView {
  el: HTMLElement;
  refresh(): Promise<void>;
}

/** A failed login is fixed in Settings: offer the way there. */
function settingsButtonTo(openSettings: BenchDeps['openSettings']) {
  return (r: Pick<BenchResultSummary, 'status' | 'error'>): HTMLElement | null => {
    if (r.status !== 'failed' || r.error?.code !== 'AUTH_FAILED') return null;
    return h('button', {
      class: 'btn subtle bench-run-note',
      type: 'button',
      text: t('openSettings'),
      'data-testid': 'bench-open-settings',
      onClick: () => openSettings('identityFile'),
    });
  };
}

export function createBenchView(deps: BenchDeps): BenchView {
  const { api } = deps;
  // The view lives as long as the page: its store is never disposed.
  const store = new Disposables();
  const settingsButton = settingsButtonTo(deps.openSettings);
  const formError = createFormError(store);
  const say = formError.say;
  const preview = () => scripts.preview(form.preset(), form.params);
  const form = new RunForm({ store, changed: () => void preview(), say });
  const scripts = new ScriptPreview({
    api,
    store,
    previewed: (error) => {
      say(error === null ? null : { text: error });
      batch.previewed(error === null);
    },
  });
  const results: ResultList = new ResultList({
    api,
    store,
    settingsButton,
    reattach: (r) => void batch.follow([], (batchId) => api.call('bench.attach', { id: r.id, batchId })),
  });
  const batch: BatchRun = new BatchRun({
    api,
    store,
    say,
    settingsButton,
    run: () => void run(),
    finished: (id) => results.pick(id),
    done: () => void results.load(),
  });

  /** Run: what the form asks for, previewed and confirmed where needed, started and followed. */
  async function run(): Promise<void> {
    const ask = await form.ask();
    if (!ask) return;
    const pre = await preview();
    if (!pre) return;
    const confirmed = pre.confirmations.length > 0;
    if (confirmed && !(await confirmRun(ask.preset, pre.confirmations, ask.tarball))) return;
    results.unpickAll();
    await batch.follow(Object.keys(ask.matrix ?? {}), (batchId) => api.call('bench.run', form.runInput(ask, confirmed, batchId)));
    batch.paint();
  }

  /**
   * A page that comes back (a reload, a second window) follows what the engine still runs: the
   * runs and series it started earlier go on there, and their progress and statistics end here.
   */
  async function rejoin(): Promise<void> {
    if (batch.following) return;
    const [id] = (await api.call('bench.running', {})).ids;
    if (id && !batch.following) await batch.follow([], (batchId) => api.call('bench.attach', { id, batchId }));
  }

  const runTitle = h('h2');
  bindText(store, runTitle, () => t('runTitle'));
  const el = h(
    'section',
    { class: 'bench' },
    h('div', { class: 'bench-run' }, runTitle, ...form.parts, ...scripts.parts, batch.actions, formError.el, batch.progress, batch.log),
    results.el,
  );
  bindAttr(store, el, 'aria-label', () => t('viewLabel'));

  store.add(
    onLocaleChange(() => {
      form.showHosts();
      results.repaint();
      batch.paint();
      void preview();
    }),
  );

  return {
    el,
    async refresh() {
      try {
        if (!form.hasPresets) form.setPresets((await api.call('bench.presets', {})).presets);
        form.setInstances(await deps.instances());
        await results.load();
        await rejoin();
      } catch (e) {
        say({ text: toAppError(e).message });
      }
    },
  };
}
