import type { Instance } from '../../../src/common/model/instance.js';

// Pure list logic (filter, sort, group) kept apart from the DOM so it stays simple to test.

export type SortKey = 'name' | 'state' | 'region';
export type GroupKey = 'none' | 'region' | 'state';

/** Case-insensitive; every word must match a name, id, IP, type, AZ, key or tag key/value. */
export function matches(i: Instance, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = [i.name, i.id, i.publicIp, i.privateIp, i.type, i.az, i.region, i.keyName, i.state, ...Object.entries(i.tags).flat()]
    .filter((x): x is string => !!x)
    .join('\n')
    .toLowerCase();
  return words.every((w) => hay.includes(w));
}

const STATE_ORDER: Record<string, number> = { running: 0, pending: 1, stopping: 2, stopped: 3, 'shutting-down': 4, terminated: 5 };

export function compare(a: Instance, b: Instance, key: SortKey): number {
  const byName = (a.name ?? '\uffff').localeCompare(b.name ?? '\uffff') || a.id.localeCompare(b.id);
  if (key === 'state') return (STATE_ORDER[a.state] ?? 9) - (STATE_ORDER[b.state] ?? 9) || byName;
  if (key === 'region') return a.region.localeCompare(b.region) || byName;
  return byName;
}

export interface Group {
  title: string | null;
  items: Instance[];
}

export function arrange(list: Instance[], query: string, sort: SortKey, group: GroupKey): Group[] {
  const rows = list.filter((i) => matches(i, query)).sort((a, b) => compare(a, b, sort));
  if (group === 'none') return [{ title: null, items: rows }];
  const groups = new Map<string, Instance[]>();
  for (const r of rows) {
    const k = group === 'region' ? r.region : r.state;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const keys = [...groups.keys()].sort((a, b) => (group === 'state' ? (STATE_ORDER[a] ?? 9) - (STATE_ORDER[b] ?? 9) : a.localeCompare(b)));
  return keys.map((k) => ({ title: k, items: groups.get(k)! }));
}

/** The address a connect would use, and whether it is an Elastic IP. */
export function addressOf(i: Instance): { text: string; eip: boolean; kind: 'public' | 'private' | 'none' } {
  if (i.publicIp) return { text: i.publicIp, eip: i.isElasticIp, kind: 'public' };
  if (i.privateIp) return { text: i.privateIp, eip: false, kind: 'private' };
  return { text: '—', eip: false, kind: 'none' };
}
