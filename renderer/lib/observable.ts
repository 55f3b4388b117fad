// A value that tells whoever asked when it changes: one place holds the settings or the instance
// list, and each view subscribes to it, instead of the shell calling every view that shows it.

export interface Observable<T> {
  readonly value: T;
  set(next: T): void;
  /** Called with every later value (not the current one); returns the unsubscribe. */
  subscribe(fn: (value: T) => void): () => void;
}

export function observable<T>(initial: T): Observable<T> {
  let value = initial;
  const subscribers = new Set<(value: T) => void>();
  return {
    get value() {
      return value;
    },
    set(next) {
      value = next;
      for (const fn of [...subscribers]) fn(next);
    },
    subscribe(fn) {
      subscribers.add(fn);
      return () => void subscribers.delete(fn);
    },
  };
}
