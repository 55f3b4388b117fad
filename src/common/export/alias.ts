// Host aliases for exported configs and file names, made from Name tags. An alias must be safe
// as an ssh_config Host pattern (no *, ?, !, spaces, quotes), on a command line and in a file
// name, so it keeps only [a-z0-9._-]. Names that collide (duplicates, or two names that slug to
// the same text, or an alias already used elsewhere) get a piece of the instance id appended.

export interface AliasInput {
  instanceId: string;
  name: string | null;
}

export interface AliasMapping {
  alias: string;
  instanceId: string;
  name: string | null;
  /** Why the alias differs from the plain name, for the mapping shown to the user. */
  note?: 'no-name' | 'changed' | 'duplicate';
}

const MAX_ALIAS = 63;

/** Lower-case ASCII slug of a name; '' when nothing usable is left. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-._]+|[-.]+$/g, '')
    .slice(0, MAX_ALIAS)
    .replace(/[-.]+$/g, '');
}

function idTail(instanceId: string): string {
  return instanceId.replace(/^i-/, '').slice(-8).toLowerCase();
}

/**
 * One unique alias per input, in input order. `reserved` holds aliases already in use (e.g. Host
 * lines outside the managed block) that must not be reused.
 */
export function makeAliases(items: readonly AliasInput[], opts: { reserved?: Iterable<string> } = {}): AliasMapping[] {
  const taken = new Set([...(opts.reserved ?? [])].map((a) => a.toLowerCase()));
  const bases = items.map((it) => (it.name ? slugify(it.name) : ''));
  const count = new Map<string, number>();
  for (const b of bases) if (b) count.set(b, (count.get(b) ?? 0) + 1);
  return items.map((it, i) => {
    const base = bases[i]!;
    let alias: string;
    let note: AliasMapping['note'];
    if (!base) {
      alias = it.instanceId.toLowerCase();
      note = 'no-name';
    } else if (count.get(base)! > 1 || taken.has(base)) {
      alias = `${base.slice(0, MAX_ALIAS - 9)}-${idTail(it.instanceId)}`;
      note = 'duplicate';
    } else {
      alias = base;
      if (base !== it.name) note = 'changed';
    }
    if (taken.has(alias)) alias = `${base ? `${base.slice(0, 30)}-` : ''}${it.instanceId.toLowerCase()}`;
    for (let n = 2; taken.has(alias); n++) alias = `${it.instanceId.toLowerCase()}-${n}`;
    taken.add(alias);
    const m: AliasMapping = { alias, instanceId: it.instanceId, name: it.name };
    if (note) m.note = note;
    return m;
  });
}
