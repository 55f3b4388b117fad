// What a view starts that outlives a call — event listeners, timers, subscriptions — goes into
// one store, so a view's teardown is one dispose() and nothing keeps running behind it.

type Dispose = () => void;

export class Disposables {
  private readonly items = new Set<Dispose>();
  private disposed = false;

  /** Keeps `dispose` for the teardown; once torn down, runs it at once (a late subscription never leaks). */
  add(dispose: Dispose): Dispose {
    if (this.disposed) dispose();
    else this.items.add(dispose);
    return dispose;
  }

  listen<K extends keyof HTMLElementEventMap>(target: EventTarget, type: K, fn: (e: HTMLElementEventMap[K]) => void): void {
    target.addEventListener(type, fn as EventListener);
    this.add(() => target.removeEventListener(type, fn as EventListener));
  }

  every(ms: number, fn: () => void): void {
    const id = setInterval(fn, ms);
    this.add(() => clearInterval(id));
  }

  /** A one-shot timer; the returned function cancels it. A timer that fired leaves the store. */
  after(ms: number, fn: () => void): Dispose {
    const cancel = () => {
      clearTimeout(id);
      this.items.delete(cancel);
    };
    const id = setTimeout(() => {
      this.items.delete(cancel);
      fn();
    }, ms);
    return this.add(cancel);
  }

  /** Undoes everything added, newest first (a listener goes before the state it reads). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const all = [...this.items].reverse();
    this.items.clear();
    for (const d of all) d();
  }
}
