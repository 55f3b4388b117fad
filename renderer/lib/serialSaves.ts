import type { Observable } from './observable.js';

// Saves of one settings object from several places (the Settings form, Snippets, Connect as…, the
// log controls). Each caller builds the whole object from what it saw; two saves in flight would
// let the later, built before the earlier's reply, undo the earlier's change. So saves run one
// after another, and each sends only the top-level fields its caller changed, applied to the
// settings the previous save left.

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A save function for `current` that sends through `send` and keeps `current` as the backend answered.
 * `loaded` is the first read of the saved settings: until it lands `current` holds defaults, and a
 * save applied to them would overwrite every saved field (the key file, the port…) with its default.
 * So the first save waits for it.
 */
export function serialSaves<T extends object>(current: Observable<T>, send: (next: T) => Promise<T>, loaded: Promise<unknown>): (next: T) => Promise<void> {
  let queue: Promise<unknown> = loaded.catch(() => undefined);
  return (next) => {
    const seen = current.value;
    // A field the caller left out (an optional one cleared) counts as changed too.
    const keys = new Set([...Object.keys(seen), ...Object.keys(next)] as (keyof T)[]);
    const changed = [...keys].filter((k) => !sameValue(next[k], seen[k]));
    const run = queue.then(async () => {
      const merged = { ...current.value };
      for (const k of changed) {
        if (k in next) merged[k] = next[k];
        else delete merged[k];
      }
      current.set(await send(merged));
    });
    // A failed save is its caller's to report; the next one still runs.
    queue = run.catch(() => undefined);
    return run;
  };
}
