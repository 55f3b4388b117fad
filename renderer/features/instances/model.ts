import type { Instance } from '../../../src/common/model/instance.js';
import { matchesFilter, parseFilter } from '../../../src/common/model/filter.js';

// Pure list logic (filter, sort, group, the flat rows a virtualised list draws) kept apart from
// the DOM so it stays simple to test. Filtering is the one definition in src/common/model/filter.ts
// that `tagssh list --filter` uses too.

export type SortKey = 'name' | 'state' | 'region';
export type GroupKey = 'none' | 'region' | 'state';

/** Every word must match: `key=value` a tag, any other word a name, id, IP, type, zone, key pair, state or tag. */
export function matches(i: Instance, query: string): boolean {
  return matchesFilter(i, parseFilter(query));
}

const STATE_ORDER: Record<string, number> = { running: 0, pending: 1, stopping: 2, stopped: 3, 'shutting-down': 4, terminated: 5 };

// One collator for every comparison: String#localeCompare builds one per call, which made a
// 5,000-row sort cost more than a frame.
const collator = new Intl.Collator();

export function compare(a: Instance, b: Instance, key: SortKey): number {
  const byName = collator.compare(a.name ?? '\uffff', b.name ?? '\uffff') || collator.compare(a.id, b.id);
  if (key === 'state') return (STATE_ORDER[a.state] ?? 9) - (STATE_ORDER[b.state] ?? 9) || byName;
  if (key === 'region') return collator.compare(a.region, b.region) || byName;
  return byName;
}

// A list is sorted once per sort key; each keystroke then only filters (filtering keeps the order).
const sortedLists = new WeakMap<readonly Instance[], Map<SortKey, Instance[]>>();

function sortedOf(list: readonly Instance[], sort: SortKey): Instance[] {
  let byKey = sortedLists.get(list);
  if (!byKey) sortedLists.set(list, (byKey = new Map()));
  let sorted = byKey.get(sort);
  if (!sorted) byKey.set(sort, (sorted = [...list].sort((a, b) => compare(a, b, sort))));
  return sorted;
}

export interface Group {
  title: string | null;
  items: Instance[];
}

export function arrange(list: Instance[], query: string, sort: SortKey, group: GroupKey): Group[] {
  const words = parseFilter(query);
  const sorted = sortedOf(list, sort);
  const rows = words.length ? sorted.filter((i) => matchesFilter(i, words)) : sorted;
  if (group === 'none') return [{ title: null, items: rows }];
  const groups = new Map<string, Instance[]>();
  for (const r of rows) {
    const k = group === 'region' ? r.region : r.state;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(r);
  }
  const keys = [...groups.keys()].sort((a, b) => (group === 'state' ? (STATE_ORDER[a] ?? 9) - (STATE_ORDER[b] ?? 9) : collator.compare(a, b)));
  return keys.map((k) => ({ title: k, items: groups.get(k)! }));
}

/** One line of the virtualised list: a group heading or an instance. */
export type Line = { kind: 'group'; title: string; count: number } | { kind: 'row'; instance: Instance; index: number };

/** Groups flattened into the lines the list draws; `index` counts instances only (keyboard order). */
export function linesOf(groups: Group[]): Line[] {
  const lines: Line[] = [];
  let index = 0;
  for (const g of groups) {
    if (g.title !== null && g.items.length) lines.push({ kind: 'group', title: g.title, count: g.items.length });
    for (const instance of g.items) lines.push({ kind: 'row', instance, index: index++ });
  }
  return lines;
}

/** The slice of lines to draw for a scroll position: what is visible plus `overscan` lines each side. */
export function windowOf(total: number, scrollTop: number, viewport: number, lineHeight: number, overscan = 8): { start: number; end: number } {
  const first = Math.floor(Math.max(0, scrollTop) / lineHeight);
  const visible = Math.ceil(Math.max(viewport, lineHeight) / lineHeight) + 1;
  const start = Math.max(0, first - overscan);
  return { start, end: Math.min(total, first + visible + overscan) };
}

/** The address a connect would use, and whether it is an Elastic IP. */
export function addressOf(i: Instance): { text: string; eip: boolean; kind: 'public' | 'private' | 'none' } {
  if (i.publicIp) return { text: i.publicIp, eip: i.isElasticIp, kind: 'public' };
  if (i.privateIp) return { text: i.privateIp, eip: false, kind: 'private' };
  return { text: '—', eip: false, kind: 'none' };
}
