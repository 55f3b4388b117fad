import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { defineMessages, onLocaleChange } from '../../i18n/index.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { WorkspaceTab, WorkspaceTunnel } from '../../../src/common/workspace/contract.js';
import type { TunnelRestorer } from '../tunnels/restore.js';

// Workspace restore, the page's half: the open terminal tabs (with their file panel's folder) are
// reported to the engine as they change (src/node/workspace keeps them, and the engine's running
// tunnels, in a file); after a restart the first page offers the previous run's tabs and tunnels
// (Settings › Reopen last run's tabs), reopens them by instance id, and says which could not be
// reopened and why.

export const t = defineMessages({
  en: {
    askTitle: 'Reopen the last run’s tabs?',
    askTitleTunnels: 'Reopen the last run’s tabs and tunnels?',
    askBody: 'When TagSSH last ran, these terminal tabs were open: {names}.',
    askTunnels: 'These tunnels were running: {names}.',
    reopen: 'Reopen',
    notNow: 'Not now',
    reopened: 'Reopened {ok} of {all} tabs from the last run.',
    restarted: 'Started {ok} of {all} tunnels from the last run again.',
    notReopened: 'Not reopened: {list}',
    item: '{label} ({id}): {why}',
    itemFiles: 'the file panel of {label} ({id}) at {dir}: {why}',
    itemTunnel: 'tunnel {label}: {why}',
    dismiss: 'Dismiss',
  },
  ja: {
    askTitle: '前回のタブを開き直しますか?',
    askTitleTunnels: '前回のタブとトンネルを開き直しますか?',
    askBody: '前回 TagSSH を使ったとき、次の端末タブが開いていました: {names}。',
    askTunnels: '次のトンネルが動いていました: {names}。',
    reopen: '開き直す',
    notNow: '今はしない',
    reopened: '前回のタブ {all} 個のうち {ok} 個を開き直しました。',
    restarted: '前回のトンネル {all} 個のうち {ok} 個を再び開始しました。',
    notReopened: '開き直せなかったもの: {list}',
    item: '{label} ({id}): {why}',
    itemFiles: '{label} ({id}) のファイルパネル ({dir}): {why}',
    itemTunnel: 'トンネル {label}: {why}',
    dismiss: '閉じる',
  },
});

/** What reopening one thing came to: open, or the words for why not. */
export type Reopened =
  | { kind: 'tab'; tab: WorkspaceTab; problem: string | null }
  | { kind: 'files'; tab: WorkspaceTab; dir: string; problem: string | null }
  | { kind: 'tunnel'; label: string; problem: string | null };

/** How opening one kept tab went: the tab's problem, and its file panel's (null when reopened or none kept). */
interface TabReopened {
  problem: string | null;
  files: string | null;
}

/** Reports the page's open tabs to the engine, a moment after the last change (tabs open and close in bursts). */
export function workspaceReporter(api: Api, pageId: () => string | null, tabs: () => WorkspaceTab[]): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const id = pageId();
      if (id) void api.call('workspace.save', { pageId: id, tabs: tabs() }).catch(() => {});
    }, 300);
  };
}

function itemText(r: Reopened): string {
  const why = r.problem ?? '';
  if (r.kind === 'tunnel') return t('itemTunnel', { label: r.label, why });
  if (r.kind === 'files') return t('itemFiles', { label: r.tab.label, id: r.tab.instanceId, dir: r.dir, why });
  return t('item', { label: r.tab.label, id: r.tab.instanceId, why });
}

/** The notice that says how the restore went (hidden until then). */
export function createRestoreNotice(): { el: HTMLElement; show(results: Reopened[]): void } {
  let last: Reopened[] | null = null;
  const el = h('div', { class: 'notice', role: 'status', 'data-testid': 'workspace-restored', hidden: true });
  const paint = () => {
    if (!last) return;
    const count = (kind: Reopened['kind']) => {
      const all = last!.filter((r) => r.kind === kind);
      return { all: all.length, ok: all.filter((r) => r.problem === null).length };
    };
    const tabs = count('tab');
    const tunnels = count('tunnel');
    const failed = last.filter((r) => r.problem !== null);
    el.replaceChildren(
      tabs.all ? h('span', { text: t('reopened', tabs) }) : '',
      tunnels.all ? h('span', { text: `${tabs.all ? ' ' : ''}${t('restarted', tunnels)}` }) : '',
      failed.length ? h('span', { class: 'hint', text: ` ${t('notReopened', { list: failed.map(itemText).join('; ') })}` }) : '',
      h('button', {
        type: 'button',
        class: 'notice-dismiss',
        text: t('dismiss'),
        onClick: () => {
          last = null;
          el.hidden = true;
        },
      }),
    );
  };
  onLocaleChange(paint);
  return {
    el,
    show(results) {
      last = results;
      el.hidden = false;
      paint();
    },
  };
}

/** Asks whether to reopen (Settings › ask first), naming the tabs and tunnels. */
function ask(tabs: WorkspaceTab[], tunnels: string[]): Promise<boolean> {
  const lines = [
    tabs.length ? t('askBody', { names: tabs.map((x) => x.label).join(', ') }) : '',
    tunnels.length ? t('askTunnels', { names: tunnels.join(', ') }) : '',
  ].filter(Boolean);
  return confirmDialog({
    title: t(tunnels.length ? 'askTitleTunnels' : 'askTitle'),
    body: h('div', {}, ...lines.map((text) => h('p', { text }))),
    confirm: t('reopen'),
    cancel: t('notNow'),
  });
}

/**
 * After a restart: the previous run's tabs and tunnels, offered per Settings (ask first, always,
 * never), tabs reopened with `open` (which settles with the tab's and its file panel's problems)
 * and tunnels started again with the restorer `tunnels` makes.
 */
export async function restoreWorkspace(deps: {
  api: Api;
  settings: () => Settings;
  open: (tab: WorkspaceTab) => Promise<TabReopened>;
  tunnels: () => Promise<TunnelRestorer>;
  notice: { show(results: Reopened[]): void };
}): Promise<void> {
  const last = await deps.api.call('workspace.lastRun', {});
  const choice = deps.settings().restoreTabs;
  if ((!last.tabs.length && !last.tunnels.length) || choice === 'never') return;
  const restorer = last.tunnels.length ? await deps.tunnels() : null;
  const tunnels: Array<{ kept: WorkspaceTunnel; label: string }> = restorer ? last.tunnels.map((kept) => ({ kept, label: restorer.label(kept) })) : [];
  if (
    choice === 'ask' &&
    !(await ask(
      last.tabs,
      tunnels.map((x) => x.label),
    ))
  )
    return;
  const reopenTab = async (tab: WorkspaceTab): Promise<Reopened[]> => {
    const got = await deps.open(tab);
    const files: Reopened[] = tab.files?.dir && got.problem === null ? [{ kind: 'files', tab, dir: tab.files.dir, problem: got.files }] : [];
    return [{ kind: 'tab', tab, problem: got.problem }, ...files];
  };
  const results = await Promise.all([
    ...last.tabs.map(reopenTab),
    ...tunnels.map(async ({ kept, label }): Promise<Reopened[]> => [{ kind: 'tunnel', label, problem: await restorer!.start(kept) }]),
  ]);
  deps.notice.show(results.flat());
}
