// Host aliases for exported configs and file names, made from Name tags. An alias must be safe
// as an ssh_config Host pattern (no *, ?, !, spaces, quotes), on a command line and in a Windows
// or POSIX file name, so it keeps letters and digits of any script (踏み台, db-本番: OpenSSH
// matches Host patterns byte for byte, and `ssh 踏み台` finds them) and . _ -; full-width forms
// become their ASCII (NFKC) and Latin accents are dropped. Names that collide (duplicates, two
// names that slug to the same text, an alias already used elsewhere) get a piece of the instance
// id appended.

export interface AliasInput {
  instanceId: string;
  name: string | null;
}

export interface AliasMapping {
  alias: string;
  instanceId: string;
  name: string | null;
  /** Why the alias differs from the plain name, for the mapping shown to the user. */
  note?: 'no-name' | 'unusable' | 'changed' | 'duplicate';
}

const MAX_ALIAS = 63;

/** Names Windows keeps for devices: no file may be called so, whatever its extension. */
const WINDOWS_DEVICES = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/;

/** Lower-case slug of a name (letters and digits of any script, . _ -); '' when nothing usable is left. */
export function slugify(name: string): string {
  const folded = Array.from(name.normalize('NFKC'), (ch) => (/\p{Script=Latin}/u.test(ch) ? ch.normalize('NFKD').replace(/\p{M}+/gu, '') : ch)).join('');
  const slug = Array.from(
    folded
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}._-]+/gu, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^[-._\p{M}]+|[-.]+$/gu, ''),
  )
    .slice(0, MAX_ALIAS)
    .join('')
    .replace(/[-.]+$/g, '');
  return WINDOWS_DEVICES.test(slug) ? `${slug}-host` : slug;
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
      note = it.name === null ? 'no-name' : 'unusable';
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
