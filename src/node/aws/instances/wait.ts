import { AppError } from '../../../common/errors.js';

// Polling with a deadline, a progress line and cancellation, for the lifecycle waits.

interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_WAIT_MS = 10 * 60_000;

/** Calls `check` until it returns a value (not undefined), the deadline passes, or `signal` aborts. */
export async function pollUntil<T>(what: string, check: (elapsedMs: number) => Promise<T | undefined>, opts: WaitOptions = {}): Promise<T> {
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_MS;
  const intervalMs = opts.intervalMs ?? pollInterval();
  for (;;) {
    throwIfAborted(opts.signal);
    const v = await check(Date.now() - started);
    if (v !== undefined) return v;
    if (Date.now() - started > timeoutMs) {
      throw new AppError(
        'TIMEOUT',
        `Gave up after ${Math.round(timeoutMs / 1000)} s waiting for ${what}.`,
        'Check the instance in the EC2 console (status checks, security group), then try again.',
      );
    }
    await sleep(intervalMs, opts.signal);
  }
}

/** The WaitOptions a caller's { signal, timeoutMs } ask for (absent fields left out). */
export function waitOptionsFrom(o: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined }): WaitOptions {
  const w: WaitOptions = {};
  if (o.signal) w.signal = o.signal;
  if (o.timeoutMs) w.timeoutMs = o.timeoutMs;
  return w;
}

/** Poll interval: 2 s against AWS; TAGSSH_POLL_MS lets tests against an emulator go faster. */
function pollInterval(): number {
  const v = Number(process.env.TAGSSH_POLL_MS);
  return Number.isFinite(v) && v > 0 ? v : 2000;
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AppError('CANCELLED', 'Cancelled.', 'Nothing else to do; run the command again when ready.');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
