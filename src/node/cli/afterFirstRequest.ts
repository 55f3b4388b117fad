import diagnostics from 'node:diagnostics_channel';

// Node publishes every outgoing HTTP(S) request on this channel as the request is created; its
// bytes reach the socket once the connect completes, a turn of the event loop later.
const REQUEST_START = 'http.client.request.start';

export interface Deferred<T> {
  /** Settles with what the work returned; pending for as long as the work has not begun. */
  readonly done: Promise<T>;
  /** Begins the work now if it has not begun. */
  now(): void;
  /** Never begins it (what it was for failed first). */
  cancel(): void;
}

/** Runs `work` once, right after this process sends its next HTTP request, or at `now()` if that comes first. */
export function afterFirstRequest<T>(work: () => Promise<T>): Deferred<T> {
  let begin!: () => void;
  let stop!: () => void;
  const decided = new Promise<boolean>((resolve) => {
    begin = () => resolve(true);
    stop = () => resolve(false);
  });
  const onRequest = () => setImmediate(begin);
  diagnostics.subscribe(REQUEST_START, onRequest);
  const done = decided.then((go) => {
    diagnostics.unsubscribe(REQUEST_START, onRequest);
    return go ? work() : new Promise<T>(() => {});
  });
  return { done, now: begin, cancel: stop };
}
