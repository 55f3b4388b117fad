import type { Observable } from './observable.js';

// Saves of one settings object from several places (the Settings form, Snippets, Connect as…, the
// log controls). Each caller builds the whole object from what it saw; two saves in flight would
// let the later, built before the earlier's reply, undo the earlier's change. So saves run one
// after another, and each sends only the fields its caller changed. The settings file is shared
// with the CLI (`tagssh import teraterm` writes each instance's Connect as… while the app runs), so
// those changes are applied to the settings as saved now, read just before, not to this window's
// copy: a language change must not put back a Connect as… list from before an import. Fields that
// are objects (Connect as… by instance id, the terminal's, the session log's) are merged one level
// down, so a Connect as… saved here keeps the entries written elsewhere.

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The keys of `next` that differ from `seen` (one left out counts as changed). */
function changedKeys<T extends object>(seen: T, next: T): (keyof T)[] {
  const keys = new Set([...Object.keys(seen), ...Object.keys(next)] as (keyof T)[]);
  return [...keys].filter((k) => !sameValue(next[k], seen[k]));
}

/** Applies the caller's change of one field (seen → next) to the field as saved now. */
function applyField(seen: unknown, next: unknown, saved: unknown): unknown {
  if (!isRecord(seen) || !isRecord(next) || !isRecord(saved)) return next;
  const out: Record<string, unknown> = { ...saved };
  for (const k of changedKeys(seen, next)) {
    if (k in next) out[k] = next[k];
    else delete out[k];
  }
  return out;
}

/**
 * A save function for `current` that sends through `send` and keeps `current` as the backend answered.
 * `loaded` is the first read of the saved settings: until it lands `current` holds defaults, and a
 * save applied to them would overwrite every saved field (the key file, the port…) with its default.
 * So the first save waits for it. `read` reads the settings as saved now (another process may have
 * written them); without it, this window's copy is taken as the saved settings.
 */
export function serialSaves<T extends object>(
  current: Observable<T>,
  send: (next: T) => Promise<T>,
  loaded: Promise<unknown>,
  read?: () => Promise<T>,
): (next: T) => Promise<void> {
  let queue: Promise<unknown> = loaded.catch(() => undefined);
  return (next) => {
    const seen = current.value;
    const changed = changedKeys(seen, next);
    const run = queue.then(async () => {
      const saved = read ? await read() : current.value;
      const merged = { ...saved };
      for (const k of changed) {
        if (k in next) merged[k] = applyField(seen[k], next[k], saved[k]) as T[keyof T];
        else delete merged[k];
      }
      current.set(await send(merged));
    });
    // A failed save is its caller's to report; the next one still runs.
    queue = run.catch(() => undefined);
    return run;
  };
}
