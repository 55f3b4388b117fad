import { existsSync } from 'node:fs';
import type { AnyAuthMethod, AuthenticationType, AuthHandlerMiddleware, KeyboardInteractiveAuthMethod, ParsedKey } from 'ssh2';
import { AppError } from '../../common/errors.js';
import type { AuthCause, AuthFailedDetails } from '../../common/errorDetails.js';
import type { UserSource } from '../../common/login.js';
import { loadPrivateKey, type AskPassphrase, type KeyProblem } from './auth.js';

// The login's methods in OpenSSH's order — an EC2 Instance Connect key first when asked for, the
// ssh-agent, key files, then keyboard-interactive and password when the server offers them and
// someone can be asked — and, when nothing works, the error that names the real cause first:
// a key file that could not be read or is in a format TagSSH cannot read, a missing passphrase,
// the server refusing what was offered, or nothing to offer at all. Secrets asked for go to ssh2
// once and are kept nowhere.

/** A question for the person at the keyboard: a password, or the server's keyboard-interactive prompts. */
export interface SecretQuestion {
  kind: 'password' | 'keyboard-interactive';
  user: string;
  /** Where: "web-1 (203.0.113.7:22)". */
  label: string;
  /** keyboard-interactive: the server's name and instructions (untrusted text) and its prompts. */
  name?: string;
  instructions?: string;
  prompts: Array<{ prompt: string; echo: boolean }>;
  attempt: number;
}
/** Answers one question (one string per prompt); rejects when the person declines. */
export type AskSecret = (q: SecretQuestion) => Promise<string[]>;

/** OpenSSH's NumberOfPasswordPrompts. */
const PASSWORD_PROMPTS = 3;

export interface AuthPlan {
  user: string;
  /** Where, for questions and errors. */
  label: string;
  /** ssh-agent socket/pipe; undefined = none. */
  agent?: string;
  /** Key files to try in order (after the agent). */
  identityFiles: string[];
  askPassphrase?: AskPassphrase;
  /** Called while a prompt is open, so the connect timeout can pause. */
  onPrompt?: (open: boolean) => void;
  /** A key pushed with EC2 Instance Connect, first ('always'); 'ask' pushes nothing and lets the error offer it. */
  instanceConnect?: { mode: 'always' | 'ask'; push(): Promise<ParsedKey> };
  /** Asks for a password or keyboard-interactive answers; absent = those methods are not tried. */
  askSecret?: AskSecret;
}

interface Attempt {
  /** As listed in "tried: …". */
  text: string;
  method: 'agent' | 'key' | 'instance-connect' | 'password' | 'keyboard-interactive';
  path?: string;
  outcome: 'offered' | 'refused' | KeyProblem['outcome'] | 'failed' | 'declined';
  ppk?: boolean;
}

export interface AuthRecord {
  attempts: Attempt[];
  /** The Instance Connect push's own failure (e.g. the role lacks the permission). */
  instanceConnectError?: AppError;
  pushed: boolean;
  /** The person declined a question (a passphrase or password prompt). */
  declined: boolean;
}

/** One keyboard-interactive try; `attempt` counts the tries, so a second one says the last answer was refused. */
function keyboardInteractive(plan: AuthPlan, ask: AskSecret, rec: AuthRecord, attempt: number): AnyAuthMethod {
  const prompt: KeyboardInteractiveAuthMethod['prompt'] = (name, instructions, _lang, prompts, finish) => {
    if (prompts.length === 0) return finish([]);
    plan.onPrompt?.(true);
    ask({
      kind: 'keyboard-interactive',
      user: plan.user,
      label: plan.label,
      name,
      instructions,
      prompts: prompts.map((p) => ({ prompt: p.prompt, echo: !!p.echo })),
      attempt,
    })
      .then(finish, () => {
        rec.declined = true;
        finish([]);
      })
      .finally(() => plan.onPrompt?.(false));
  };
  return { type: 'keyboard-interactive', username: plan.user, prompt };
}

type Step = { kind: AuthenticationType | 'agent'; run: () => Promise<AnyAuthMethod | null> };
type Note = (a: Attempt) => void;

function instanceConnectStep(plan: AuthPlan, push: () => Promise<ParsedKey>, rec: AuthRecord, note: Note): Step {
  return {
    kind: 'publickey',
    run: async () => {
      try {
        const key = await push();
        rec.pushed = true;
        note({ text: 'a key pushed with EC2 Instance Connect', method: 'instance-connect', outcome: 'offered' });
        return { type: 'publickey', username: plan.user, key };
      } catch (e) {
        const err = e instanceof AppError ? e : new AppError('AWS_API', (e as Error).message);
        rec.instanceConnectError = err;
        note({ text: `EC2 Instance Connect (${err.message.replace(/\.$/, '')})`, method: 'instance-connect', outcome: 'failed' });
        return null;
      }
    },
  };
}

function agentStep(plan: AuthPlan, agent: string, note: Note): Step {
  return {
    kind: 'agent',
    run: async () => {
      if (!agent.startsWith('\\\\') && agent !== 'pageant' && !existsSync(agent)) {
        note({ text: `agent (${agent} does not exist)`, method: 'agent', outcome: 'unreadable' });
        return null;
      }
      note({ text: 'agent', method: 'agent', outcome: 'offered' });
      return { type: 'agent', username: plan.user, agent };
    },
  };
}

function keyFileStep(plan: AuthPlan, file: string, rec: AuthRecord, note: Note): Step {
  return {
    kind: 'publickey',
    run: async () => {
      const key = await loadPrivateKey(file, plan.askPassphrase, plan.onPrompt);
      if ('outcome' in key) {
        if (key.text.endsWith('passphrase not given')) rec.declined = true;
        note({ text: `${file} (${key.text})`, method: 'key', path: file, outcome: key.outcome, ...(key.ppk ? { ppk: true } : {}) });
        return null;
      }
      note({ text: file, method: 'key', path: file, outcome: 'offered' });
      return { type: 'publickey', username: plan.user, key };
    },
  };
}

function passwordStep(plan: AuthPlan, ask: AskSecret, attempt: number, rec: AuthRecord, note: Note): Step {
  return {
    kind: 'password',
    run: async () => {
      if (rec.declined) return null;
      plan.onPrompt?.(true);
      try {
        const [password] = await ask({ kind: 'password', user: plan.user, label: plan.label, prompts: [{ prompt: 'Password:', echo: false }], attempt });
        note({ text: 'password', method: 'password', outcome: 'offered' });
        return { type: 'password', username: plan.user, password: password ?? '' };
      } catch {
        rec.declined = true;
        return null;
      } finally {
        plan.onPrompt?.(false);
      }
    },
  };
}

function keyboardInteractiveStep(plan: AuthPlan, ask: AskSecret, attempt: number, rec: AuthRecord, note: Note): Step {
  return {
    kind: 'keyboard-interactive',
    run: async () => {
      if (attempt > 1 && rec.declined) return null;
      note({ text: 'keyboard-interactive', method: 'keyboard-interactive', outcome: 'offered' });
      return keyboardInteractive(plan, ask, rec, attempt);
    },
  };
}

/** The plan's methods in the order they are tried. */
function stepsOf(plan: AuthPlan, rec: AuthRecord, note: Note): Step[] {
  const steps: Step[] = [];
  const ic = plan.instanceConnect;
  if (ic?.mode === 'always') steps.push(instanceConnectStep(plan, () => ic.push(), rec, note));
  if (plan.agent) steps.push(agentStep(plan, plan.agent, note));
  for (const file of plan.identityFiles) steps.push(keyFileStep(plan, file, rec, note));
  const ask = plan.askSecret;
  if (ask) {
    // A refused answer fails the whole method (sshd's PAM does not ask again within it): like ssh,
    // try it again up to NumberOfPasswordPrompts times before the password method.
    for (let n = 1; n <= PASSWORD_PROMPTS; n++) steps.push(keyboardInteractiveStep(plan, ask, n, rec, note));
    for (let n = 1; n <= PASSWORD_PROMPTS; n++) steps.push(passwordStep(plan, ask, n, rec, note));
  }
  return steps;
}

/** An ssh2 authHandler that walks the plan and records what it tried, for the error. */
export function createAuthHandler(plan: AuthPlan): { handler: AuthHandlerMiddleware; record: AuthRecord } {
  const rec: AuthRecord = { attempts: [], pushed: false, declined: false };
  const steps = stepsOf(plan, rec, (a) => rec.attempts.push(a));
  let i = 0;
  let learned = false;
  const handler: AuthHandlerMiddleware = (authsLeft, _partial, next) => {
    // What was offered last and brought us back here was refused.
    const last = rec.attempts.at(-1);
    if (last?.outcome === 'offered') last.outcome = 'refused';
    const allowed = (m: Step['kind']) => !authsLeft || authsLeft.includes(m as AuthenticationType) || (m === 'agent' && authsLeft.includes('publickey'));
    // ssh2 takes `false` as "no more methods"; its typings only list method names.
    const stop = () => (next as unknown as (m: false) => void)(false);
    const advance = async (): Promise<void> => {
      while (i < steps.length) {
        const step = steps[i]!;
        // Asking for a secret before the server said it takes one would ask in vain: learn its methods with "none".
        if (!authsLeft && !learned && (step.kind === 'password' || step.kind === 'keyboard-interactive')) {
          learned = true;
          return next({ type: 'none', username: plan.user } as AnyAuthMethod);
        }
        if (!allowed(step.kind)) {
          i++;
          continue;
        }
        i++;
        const method = await step.run();
        if (method) return next(method);
      }
      stop();
    };
    advance().catch(stop);
  };
  return { handler, record: rec };
}

/** Which cause a failed login had, the most telling first. */
function causeOf(rec: AuthRecord): { cause: AuthCause; attempt?: Attempt } {
  const find = (outcome: Attempt['outcome'], method?: Attempt['method']) => rec.attempts.find((a) => a.outcome === outcome && (!method || a.method === method));
  const pushed = rec.attempts.find((a) => a.method === 'instance-connect' && a.outcome === 'refused');
  if (pushed) return { cause: 'instance-connect-refused', attempt: pushed };
  for (const [outcome, cause] of [
    ['format', 'key-format'],
    ['unreadable', 'key-unreadable'],
    ['passphrase', 'passphrase'],
  ] as const) {
    const a = find(outcome, 'key');
    if (a) return { cause, attempt: a };
  }
  const refusedKey = rec.attempts.find((a) => a.outcome === 'refused' && (a.method === 'key' || a.method === 'agent'));
  if (refusedKey) return { cause: 'refused', attempt: refusedKey };
  const password = rec.attempts.find((a) => a.outcome === 'refused' && (a.method === 'password' || a.method === 'keyboard-interactive'));
  if (password) return { cause: 'password-refused', attempt: password };
  return { cause: 'nothing-to-offer' };
}

interface LoginContext {
  user: string;
  userSource?: UserSource;
  label: string;
  instanceId?: string;
  /** EC2 Instance Connect could push a key here if the person agrees. */
  instanceConnectOffer?: boolean;
}

/** The one error for a login nobody accepted, naming the real cause first. */
export function loginFailedError(ctx: LoginContext, rec: AuthRecord): AppError {
  const tried = rec.attempts.map((a) => a.text);
  const what = tried.length ? tried.join(', ') : 'nothing (no ssh-agent and no key file found)';
  const { cause, attempt } = causeOf(rec);
  const details: AuthFailedDetails = { user: ctx.user, tried, cause, label: ctx.label };
  if (attempt?.path) details.keyFile = attempt.path;
  if (attempt?.ppk) details.ppk = true;
  if (ctx.userSource) details.userSource = ctx.userSource;
  if (ctx.instanceId) details.instanceId = ctx.instanceId;
  if (rec.pushed) details.instanceConnect = 'pushed';
  else if (ctx.instanceConnectOffer) details.instanceConnect = 'offer';
  const as = `as "${ctx.user}"`;
  const key = attempt?.path ?? '';
  const reason = attempt?.text.replace(`${key} (`, '').replace(/\)$/, '') ?? '';
  let message: string;
  switch (cause) {
    case 'instance-connect-refused':
      message = `${ctx.label} refused the login ${as} even with a key pushed through EC2 Instance Connect: its AMI may lack EC2 Instance Connect (the ec2-instance-connect package), or "${ctx.user}" is not a user there; tried: ${what}.`;
      break;
    case 'key-format':
      message = `The key file ${key} cannot be used to log in to ${ctx.label}: it is ${reason}; tried: ${what}.`;
      break;
    case 'key-unreadable':
      message = `The key file ${key} cannot be used to log in to ${ctx.label}: it ${reason}; tried: ${what}.`;
      break;
    case 'passphrase':
      message = `The key file ${key} is encrypted and could not be unlocked (${reason.replace(/^encrypted(; )?/, '') || 'no passphrase'}), so ${ctx.label} was not logged in to; tried: ${what}.`;
      break;
    case 'refused':
      message = `${ctx.label} did not accept ${attempt?.method === 'agent' ? "the ssh-agent's keys" : `the key ${key}`} ${as}; tried: ${what}.`;
      break;
    case 'password-refused':
      message = `${ctx.label} did not accept the password ${as}; tried: ${what}.`;
      break;
    default:
      message = `${ctx.label} refused the login ${as}: there was no key to offer; tried: ${what}.`;
  }
  return new AppError('AUTH_FAILED', message, undefined, details);
}
