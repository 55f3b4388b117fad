import * as z from 'zod';
import { AppError, ERROR_CODES, toAppError, type AppErrorData, type ErrorCode } from './errors.js';

// The wire protocol between a UI and the one backend, whatever carries it (Electron IPC or a
// WebSocket). Three envelopes: a request {t:'req'}, its response {t:'res'} and a pushed event
// {t:'evt'}. Both ends validate what they receive against the contract's zod schemas: the
// payload types are a promise, the schemas are the check.

interface CallSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
}
type CallMap = Record<string, CallSpec>;
type EventMap = Record<string, z.ZodType>;
interface ContractShape<C extends CallMap = CallMap, E extends EventMap = EventMap> {
  calls: C;
  events: E;
}

/** Declares one call; keeps input/output schema types for inference. */
export function call<I extends z.ZodType, O extends z.ZodType>(input: I, output: O): CallSpec<I, O> {
  return { input, output };
}

export const AppErrorDataSchema = z.object({
  code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
  message: z.string(),
  hint: z.string().optional(),
  details: z.unknown().optional(),
});

const RequestId = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const RequestSchema = z.object({ t: z.literal('req'), id: RequestId, method: z.string().min(1).max(100), params: z.unknown() });
const ResponseSchema = z.union([
  z.object({ t: z.literal('res'), id: RequestId.nullable(), ok: z.literal(true), result: z.unknown() }),
  z.object({ t: z.literal('res'), id: RequestId.nullable(), ok: z.literal(false), error: AppErrorDataSchema }),
]);
const EventSchema = z.object({ t: z.literal('evt'), event: z.string().min(1).max(100), payload: z.unknown() });

type RequestEnvelope = z.infer<typeof RequestSchema>;
export type ResponseEnvelope = z.infer<typeof ResponseSchema>;
type EventEnvelope = z.infer<typeof EventSchema>;
export type Envelope = RequestEnvelope | ResponseEnvelope | EventEnvelope;

/** Anything that moves envelopes: IPC (structured clone) or a WebSocket (JSON text). */
export interface Transport {
  send(msg: Envelope): void;
  /** Subscribes to incoming messages (already decoded, still untrusted). Returns unsubscribe. */
  onMessage(cb: (msg: unknown) => void): () => void;
}

// Input types are what a caller may pass (defaults optional); parsed inputs are what handlers get.
export type CallInput<C extends CallMap, M extends keyof C> = z.input<C[M]['input']>;
export type CallParsed<C extends CallMap, M extends keyof C> = z.output<C[M]['input']>;
export type CallOutput<C extends CallMap, M extends keyof C> = z.output<C[M]['output']>;
export type EventPayload<E extends EventMap, K extends keyof E> = z.output<E[K]>;

export type HandlerMap<C extends CallMap> = {
  [M in keyof C]: (input: CallParsed<C, M>) => Promise<CallOutput<C, M>> | CallOutput<C, M>;
};

/** One-line summary of a zod failure: where and what, never a dump. */
function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid value';
  const where = issue.path.length ? issue.path.map(String).join('.') : 'value';
  const more = error.issues.length > 1 ? ` (+${error.issues.length - 1} more)` : '';
  return `${where}: ${issue.message}${more}`;
}

function invalid(message: string, hint = 'The UI and the backend disagree about the protocol; reload the window.'): AppErrorData {
  return { code: 'INVALID_INPUT', message, hint };
}

/** Decodes JSON text; passes objects through (IPC delivers them already cloned). */
function decode(raw: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof raw !== 'string') return { ok: true, value: raw };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

export interface Dispatcher {
  /** Handles one incoming message; always answers a request, never throws. */
  handle(raw: unknown): Promise<void>;
}

/**
 * Serves `handlers` for one connection. Every incoming message is checked: envelope shape, known
 * method, params against the call's input schema; results against its output schema (a backend
 * bug becomes an INTERNAL error instead of a malformed reply).
 */
export function createDispatcher<C extends CallMap>(
  contract: ContractShape<C, EventMap>,
  handlers: HandlerMap<C>,
  send: (msg: ResponseEnvelope) => void,
): Dispatcher {
  const reply = (id: number | null, r: { ok: true; result: unknown } | { ok: false; error: AppErrorData }) => {
    try {
      send(r.ok ? { t: 'res', id, ok: true, result: r.result } : { t: 'res', id, ok: false, error: r.error });
    } catch {
      // The peer went away; nothing to tell it.
    }
  };
  return {
    async handle(raw) {
      const decoded = decode(raw);
      if (!decoded.ok) return reply(null, { ok: false, error: invalid('Message is not valid JSON.') });
      const env = RequestSchema.safeParse(decoded.value);
      if (!env.success) {
        const v = decoded.value as { id?: unknown } | null;
        const id = v && typeof v === 'object' && RequestId.safeParse(v.id).success ? (v.id as number) : null;
        return reply(id, { ok: false, error: invalid(`Malformed request: ${describeIssues(env.error)}.`) });
      }
      const { id, method, params } = env.data;
      if (!Object.hasOwn(contract.calls, method) || !Object.hasOwn(handlers, method)) {
        return reply(id, { ok: false, error: invalid(`Unknown method "${method.slice(0, 100)}".`) });
      }
      const spec = contract.calls[method as keyof C]!;
      const input = spec.input.safeParse(params ?? {});
      if (!input.success) {
        return reply(id, { ok: false, error: invalid(`${method}: ${describeIssues(input.error)}.`, 'Check the values you entered and try again.') });
      }
      let result: unknown;
      try {
        const handler = handlers[method as keyof C] as (i: unknown) => unknown;
        result = await handler(input.data);
      } catch (e) {
        return reply(id, { ok: false, error: toAppError(e).toJSON() });
      }
      const out = spec.output.safeParse(result);
      if (!out.success) {
        return reply(id, {
          ok: false,
          error: {
            code: 'INTERNAL',
            message: `${method} returned an invalid result (${describeIssues(out.error)}).`,
            hint: 'This is a bug in TagSSH; please report it.',
          },
        });
      }
      reply(id, { ok: true, result: out.data });
    },
  };
}

export interface Client<C extends CallMap, E extends EventMap> {
  call<M extends keyof C & string>(method: M, params: CallInput<C, M>): Promise<CallOutput<C, M>>;
  on<K extends keyof E & string>(event: K, cb: (payload: EventPayload<E, K>) => void): () => void;
  /** Rejects every pending call (e.g. the transport closed). */
  failAll(error: AppErrorData): void;
  dispose(): void;
}

/** The typed caller side. Responses and events are validated too: the other end is a process boundary. */
export function createClient<C extends CallMap, E extends EventMap>(
  contract: ContractShape<C, E>,
  transport: Transport,
  opts: { onProtocolError?: (message: string) => void } = {},
): Client<C, E> {
  const protocolError = opts.onProtocolError ?? (() => {});
  let nextId = 1;
  const pending = new Map<number, { method: string; resolve: (v: unknown) => void; reject: (e: AppError) => void }>();
  const listeners = new Map<string, Set<(p: unknown) => void>>();

  const onRes = (res: ResponseEnvelope) => {
    if (res.id === null) {
      // A request the other end could not even read: nothing to match, surface it loudly.
      protocolError(`peer rejected a message: ${res.ok ? '' : res.error.message}`);
      return;
    }
    const p = pending.get(res.id);
    if (!p) return;
    pending.delete(res.id);
    if (!res.ok) return p.reject(AppError.from(res.error));
    const spec = contract.calls[p.method as keyof C];
    const out = spec ? spec.output.safeParse(res.result) : undefined;
    if (!out?.success)
      return p.reject(new AppError('INTERNAL', `${p.method}: the backend sent an invalid result.`, 'Reload the window; report this if it persists.'));
    p.resolve(out.data);
  };

  const unsubscribe = transport.onMessage((raw) => {
    const decoded = decode(raw);
    if (!decoded.ok) return;
    const msg = decoded.value as { t?: unknown };
    if (msg?.t === 'res') {
      const r = ResponseSchema.safeParse(msg);
      if (r.success) onRes(r.data);
    } else if (msg?.t === 'evt') {
      const r = EventSchema.safeParse(msg);
      if (!r.success || !Object.hasOwn(contract.events, r.data.event)) return;
      const payload = contract.events[r.data.event]!.safeParse(r.data.payload);
      if (!payload.success) return protocolError(`invalid ${r.data.event} event dropped (${describeIssues(payload.error)})`);
      for (const cb of listeners.get(r.data.event) ?? []) cb(payload.data);
    }
  });

  return {
    call(method, params) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject });
        try {
          transport.send({ t: 'req', id, method, params });
        } catch (e) {
          pending.delete(id);
          reject(new AppError('SESSION_CLOSED', `Cannot reach the TagSSH backend (${toAppError(e).message}).`, 'Reload the window or restart TagSSH.'));
        }
      });
    },
    on(event, cb) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const fn = cb as (p: unknown) => void;
      set.add(fn);
      return () => set.delete(fn);
    },
    failAll(error) {
      const err = AppError.from(error);
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    },
    dispose() {
      unsubscribe();
      listeners.clear();
    },
  };
}
