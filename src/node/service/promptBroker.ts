import { randomUUID } from 'node:crypto';
import { AppError } from '../../common/errors.js';
import type { Emit } from '../../common/contract.js';
import type { AskSecret } from '../ssh/authHandler.js';

// Passphrase prompts between the key loader and one UI connection: a prompt goes out as an
// event, the UI answers by its id, and the passphrase is handed to the loader once, never kept.
// A prompt nobody answers ends after PROMPT_TIMEOUT_MS, so an open never waits for ever.

const PROMPT_TIMEOUT_MS = 5 * 60_000;

interface Prompt {
  openId: string;
  resolve: (answer: string | string[]) => void;
  reject: (e: AppError) => void;
}

export class PromptBroker {
  private readonly prompts = new Map<string, Prompt>();
  /** Opens whose prompt the person cancelled (their failed login reports a cancel). */
  private readonly declined = new Set<string>();

  constructor(private readonly emit: Emit) {}

  /** One prompt out as an event; its answer (or a timeout, or a cancel) settles the promise. */
  private ask<T extends string | string[]>(openId: string, send: (promptId: string) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const promptId = randomUUID();
      const timer = setTimeout(() => settle(() => reject(new AppError('CANCELLED', 'Nobody answered the prompt.', 'Connect again.'))), PROMPT_TIMEOUT_MS);
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        this.prompts.delete(promptId);
        fn();
      };
      this.prompts.set(promptId, { openId, resolve: (p) => settle(() => resolve(p as T)), reject: (e) => settle(() => reject(e)) });
      send(promptId);
    });
  }

  /** The key loader's askPassphrase for one open. */
  asker(openId: string): (keyPath: string, attempt: number) => Promise<string> {
    return (keyPath, attempt) => this.ask<string>(openId, (promptId) => this.emit('session.passphrase', { openId, promptId, keyPath, attempt }));
  }

  /** The login's askSecret for one open: a password or keyboard-interactive prompts, asked in the tab. */
  secretAsker(openId: string): AskSecret {
    return (q) =>
      this.ask<string[]>(openId, (promptId) =>
        this.emit('session.secret', {
          openId,
          promptId,
          kind: q.kind,
          user: q.user,
          ...(q.name ? { name: q.name } : {}),
          ...(q.instructions ? { instructions: q.instructions } : {}),
          prompts: q.prompts.slice(0, 16),
          attempt: q.attempt,
        }),
      );
  }

  /** The UI's answer; null = the person cancelled. */
  answer(promptId: string, answer: string | string[] | null): void {
    const p = this.prompts.get(promptId);
    if (!p) throw new AppError('CANCELLED', 'That prompt is no longer open.', 'Connect again.');
    if (answer === null) {
      this.declined.add(p.openId);
      p.reject(new AppError('CANCELLED', 'Not given.'));
    } else p.resolve(answer);
  }

  /** True when the person cancelled a prompt of this open. */
  wasDeclined(openId: string): boolean {
    return this.declined.has(openId);
  }

  /** The open is over: forget what was said of it. */
  forget(openId: string): void {
    this.declined.delete(openId);
  }

  /** Ends the prompts of one open (or of every open), as cancelled with `message`. */
  cancel(message: string, openId?: string): void {
    for (const p of [...this.prompts.values()]) if (openId === undefined || p.openId === openId) p.reject(new AppError('CANCELLED', message));
  }
}
