import { snippetApplies, snippetKeystrokes, snippetsFor, type Snippet } from '../../../../src/common/snippets.js';
import type { Disposables } from '../../../lib/disposables.js';
import { h, clear } from '../../../lib/dom.js';
import { bindText } from '../../../lib/words.js';
import { t } from '../../broadcast/messages.js';
import type { ToolsContext } from './context.js';

// Snippets in the terminal tools bar: the saved commands that apply to the active tab's instance,
// run in this tab or in the broadcast tabs (typed as text, never run locally).

/** Types `s` into every broadcast tab it applies to; returns what to tell the user. */
async function runInAll(ctx: ToolsContext, s: Snippet, keys: string): Promise<string> {
  // A tag-scoped snippet goes only to the tabs whose instance carries the tag (as the CLI refuses it elsewhere).
  const tag = s.tag;
  const list = tag ? await ctx.loadInstances() : ctx.instances;
  const tagsOf = (id: string) => {
    const instanceId = ctx.entries.get(id)?.tab.instanceId;
    return instanceId ? (list.find((i) => i.id === instanceId)?.tags ?? null) : null;
  };
  const { sent, skipped } = ctx.router.typeInAll(keys, (id) => snippetApplies(s, tagsOf(id)));
  return tag && skipped ? t('ranAllSkipped', { n: sent, skipped, name: s.name, tag: `${tag.key}=${tag.value}` }) : t('ranAll', { n: sent });
}

export function snippetTools(store: Disposables, ctx: ToolsContext) {
  const label = h('label', { for: 'term-snippet' });
  bindText(store, label, () => t('snippets'));
  const select = h('select', { id: 'term-snippet', 'data-testid': 'snippet-select' });
  const run = async (all: boolean) => {
    const s = ctx.deps.settings().snippets.find((x) => x.name === select.value);
    if (!s) return;
    const keys = snippetKeystrokes(s.command);
    if (all) ctx.note(await runInAll(ctx, s, keys));
    else if (!ctx.active()?.tab.send(keys)) ctx.note(t('notOpen'));
  };
  const runHere = h('button', { class: 'btn', type: 'button', 'data-testid': 'snippet-run-here', onClick: () => void run(false) });
  bindText(store, runHere, () => t('runHere'));
  const runAll = h('button', { class: 'btn', type: 'button', 'data-testid': 'snippet-run-all', onClick: () => void run(true) });
  bindText(store, runAll, () => t('runAll'));
  return {
    el: h('span', { class: 'tools-group' }, label, select, runHere, runAll),
    /** Lists the snippets for the active tab's instance, keeping the choice where it still applies. */
    fill() {
      const e = ctx.active();
      const tags = e?.tab.instanceId ? (ctx.instances.find((i) => i.id === e.tab.instanceId)?.tags ?? null) : null;
      const list = snippetsFor(ctx.deps.settings().snippets, tags);
      const keep = select.value;
      clear(select);
      for (const s of list) select.append(h('option', { value: s.name, text: s.name, title: s.command }));
      if (!list.length) select.append(h('option', { value: '', text: t('snippetsNone') }));
      select.disabled = !list.length;
      select.title = list.length ? '' : t('snippetsNoneHint');
      if (list.some((s) => s.name === keep)) select.value = keep;
      runHere.disabled = !list.length || !e;
      runAll.disabled = !list.length || !ctx.router.active;
    },
    /** Run in all follows the broadcast. */
    paintRunAll() {
      runAll.disabled = !ctx.router.active || select.value === '';
    },
  };
}
