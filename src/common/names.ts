import * as z from 'zod';

// "Did you mean web-1?" for a Name typed almost right: another case (Web-1), a missing or extra
// separator (web1, web_1), spaces around it ('web-1 '), full-width characters from an IME
// (ｗｅｂ－１), or one slip of a key. Names stay exact everywhere else: this only suggests.

/** A Name folded the way a slip does not matter: compatibility forms (NFKC), case, spaces, dashes and separators. */
export function nameKey(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{Pd}_.・･]+/gu, '');
}

/** Edit distance ≤ 1 (one insertion, deletion, substitution or swap of neighbours). */
function withinOne(a: string, b: string): boolean {
  if (a === b) return true;
  const x = [...a];
  const y = [...b];
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const rest = (p: number, q: number) => x.slice(p).join('') === y.slice(q).join('');
  if (x.length === y.length) return rest(i + 1, i + 1) || (x[i] === y[i + 1] && x[i + 1] === y[i] && rest(i + 2, i + 2));
  return x.length > y.length ? rest(i + 1, i) : rest(i, i + 1);
}

/** Up to `max` Names that `typed` was probably meant to be: same key first, then one slip away. */
export function similarNames(typed: string, names: Iterable<string>, max = 3): string[] {
  const key = nameKey(typed);
  if (!key) return [];
  const unique = [...new Set(names)].filter((n) => n !== typed);
  const same = unique.filter((n) => nameKey(n) === key);
  const near = key.length >= 4 ? unique.filter((n) => !same.includes(n) && withinOne(nameKey(n), key)) : [];
  return [...same.sort(), ...near.sort()].slice(0, max);
}

/** NOT_FOUND's details when a Name was not found but similar ones were (the app offers them as buttons). */
export const NameSuggestionsSchema = z.object({ reason: z.literal('no-such-name'), suggestions: z.array(z.string()).max(3) });
export type NameSuggestions = z.infer<typeof NameSuggestionsSchema>;
