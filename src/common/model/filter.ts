import type { Instance } from './instance.js';

// The one instance filter, shared by `tagssh list --filter` and the app's filter box. A query is
// words separated by spaces; an instance matches when every word does (case-insensitive):
//  - `key=value` (the way the list shows tags): a tag whose key is `key` and whose value
//    contains `value` (`Name=web` works too; `key=` alone means "has the tag");
//  - any other word: part of the name, id, addresses, type, zone, region, key pair, state, or a
//    tag key or value.

const haystacks = new WeakMap<Instance, string>();

function haystack(i: Instance): string {
  let hay = haystacks.get(i);
  if (hay === undefined) {
    hay = [i.name, i.id, i.publicIp, i.privateIp, i.type, i.az, i.region, i.keyName, i.state, ...Object.entries(i.tags).flat()]
      .filter((x): x is string => !!x)
      .join('\n')
      .toLowerCase();
    haystacks.set(i, hay);
  }
  return hay;
}

interface FilterWord {
  text: string;
  /** Set for `key=value` words: the tag key (lower case) to look at. */
  tagKey?: string;
}

/** Splits a query into words once, so filtering thousands of instances parses it once. */
export function parseFilter(query: string): FilterWord[] {
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => {
      const eq = w.indexOf('=');
      return eq > 0 ? { text: w.slice(eq + 1), tagKey: w.slice(0, eq) } : { text: w };
    });
}

function tagMatches(i: Instance, key: string, value: string): boolean {
  for (const [k, v] of Object.entries(i.tags)) if (k.toLowerCase() === key && v.toLowerCase().includes(value)) return true;
  return false;
}

export function matchesFilter(i: Instance, words: readonly FilterWord[]): boolean {
  if (words.length === 0) return true;
  const hay = haystack(i);
  return words.every((w) => (w.tagKey !== undefined ? tagMatches(i, w.tagKey, w.text) : hay.includes(w.text)));
}

export function filterInstances<T extends Instance>(list: readonly T[], query: string): T[] {
  const words = parseFilter(query);
  return words.length ? list.filter((i) => matchesFilter(i, words)) : [...list];
}
