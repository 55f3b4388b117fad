import { randomUUID } from 'node:crypto';
import { AppError } from '../../common/errors.js';
import type { Emit } from '../../common/contract.js';

// Passphrase prompts between the key loader and one UI connection: a prompt goes out as an
// event, the UI answers by its id, and the passphrase is handed to the loader once, never kept.
// A prompt nobody answers ends after PROMPT_TIMEOUT_MS, so an open never waits for ever.

const PROMPT_TIMEOUT_MS = 5 * 60_000;

interface Prompt {
  openId: string;
  resolve: (passphrase: string) => void;
  reject: (e: AppError) => void;
}

export class PromptBroker {
  private readonly prompts = new Map<string, Prompt>();
  /** Opens whose prompt the person cancelled (their failed login reports a cancel). */
  private readonly declined = new Set<string>();

  constructor(private readonly emit: Emit) {}

  /** The key loader's askPassphrase for one open. */
  asker(openId: string): (keyPath: string, attempt: number) => Promise<string> {
    return (keyPath, attempt) =>
      new Promise<string>((resolve, reject) => {
        const promptId = randomUUID();
        const timer = setTimeout(
          () => settle(() => reject(new AppError('CANCELLED', 'Nobody answered the passphrase prompt.', 'Connect again.'))),
          PROMPT_TIMEOUT_MS,
        );
        const settle = (fn: () => void) => {
          clearTimeout(timer);
          this.prompts.delete(promptId);
          fn();
        };
        this.prompts.set(promptId, { openId, resolve: (p) => settle(() => resolve(p)), reject: (e) => settle(() => reject(e)) });
        this.emit('session.passphrase', { openId, promptId, keyPath, attempt });
      });
  }

  /** The UI's answer; null = the person cancelled. */
  answer(promptId: string, passphrase: string | null): void {
    const p = this.prompts.get(promptId);
    if (!p) throw new AppError('CANCELLED', 'That passphrase prompt is no longer open.', 'Connect again.');
    if (passphrase === null) {
      this.declined.add(p.openId);
      p.reject(new AppError('CANCELLED', 'Passphrase not given.'));
    } else p.resolve(passphrase);
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
