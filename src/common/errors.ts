// Every failure a user can meet travels as an AppError: a stable code (what went wrong),
// a one-line message (what happened, naming the thing), and a hint (what to do next).
// The CLI maps codes to exit codes; the RPC layer sends {code, message, hint} across the wire.

export const ERROR_CODES = {
  INVALID_INPUT: 2,
  NOT_FOUND: 3,
  AMBIGUOUS: 4,
  STOPPED: 5,
  NO_CREDENTIALS: 6,
  CREDENTIALS_EXPIRED: 7,
  ACCESS_DENIED: 8,
  BAD_REGION: 9,
  NETWORK: 10,
  THROTTLED: 11,
  AWS_API: 12,
  TIMEOUT: 13,
  HOST_KEY_UNKNOWN: 20,
  HOST_KEY_CHANGED: 21,
  AUTH_FAILED: 23,
  CONNECT_FAILED: 24,
  SESSION_CLOSED: 25,
  CANCELLED: 30,
  REMOTE_FAILED: 31,
  EXPORT_INVALID: 40,
  INTERNAL: 70,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface AppErrorData {
  code: ErrorCode;
  message: string;
  hint?: string;
  /** Machine-readable extras, e.g. the candidates of an ambiguous name. Must be JSON-safe. */
  details?: unknown;
}

export class AppError extends Error implements AppErrorData {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, hint?: string, details?: unknown) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    if (hint !== undefined) this.hint = hint;
    if (details !== undefined) this.details = details;
  }

  toJSON(): AppErrorData {
    const out: AppErrorData = { code: this.code, message: this.message };
    if (this.hint !== undefined) out.hint = this.hint;
    if (this.details !== undefined) out.details = this.details;
    return out;
  }

  static from(data: AppErrorData): AppError {
    return new AppError(data.code, data.message, data.hint, data.details);
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

export function exitCodeFor(code: ErrorCode): number {
  return ERROR_CODES[code];
}

/** Wraps anything thrown into an AppError without losing the original message. */
export function toAppError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new AppError('INTERNAL', message, 'This is a bug in TagSSH; please report it with the command you ran.');
}
