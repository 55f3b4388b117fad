import { AppError } from '../../../../common/errors.js';
import { escapeControls } from '../../../../common/safeText.js';
import { findSnippet, snippetApplies, snippetKeystrokes, type Snippet } from '../../../../common/snippets.js';
import type { Instance } from '../../../../common/model/instance.js';
import type { AwsScope } from '../../../aws/config/scope.js';
import type { ConnectTarget } from '../../../ssh/types.js';
import type { Recording } from '../../../log/recording.js';
import type { SessionLogSettings } from '../../../../common/model/settings.js';

// What `tagssh ssh NAME` does besides the shell itself: a session log (--log [FILE], --raw,
// --timestamps), a recording for replay (--record [FILE.cast]), or Settings → Session logs
// "every session" (which the app and the CLI share: its folder, name pattern and format), and a
// snippet typed as the session's first line (--snippet NAME). A remote COMMAND is logged and
// recorded when asked (--log/--record), not by "every session". Flags are checked before
// anything connects; the instance's type, AMI, AZ and tags (the log header, a snippet kept for a
// tag) come from one DescribeInstances by id, only when one of these flags is given.

export interface ShellExtraFlags {
  log?: string | boolean;
  record?: string | boolean;
  raw?: boolean;
  timestamps?: boolean;
  snippet?: string;
}

export interface ShellExtras {
  /** The session's log and/or recording. */
  log?: Recording;
  /** Keystrokes to type once the shell is up. */
  keystrokes?: string;
}

/** Flag combinations that cannot work, refused before any AWS or SSH traffic. */
export function checkShellExtraFlags(flags: ShellExtraFlags, command: string[]): void {
  if (flags.raw && !flags.log) throw new AppError('INVALID_INPUT', '--raw only changes a session log.', 'Add --log [FILE] to record the session.');
  if (flags.timestamps && !flags.log)
    throw new AppError('INVALID_INPUT', '--timestamps only changes a session log.', 'Add --log [FILE] to record the session.');
  if (flags.raw && flags.timestamps)
    throw new AppError('INVALID_INPUT', '--timestamps cannot be combined with --raw: a raw log keeps the bytes exactly as received.', 'Drop one of them.');
  if (command.length && flags.snippet)
    throw new AppError(
      'INVALID_INPUT',
      '--snippet types a saved command into an interactive session; it cannot be combined with a remote COMMAND.',
      'Drop the COMMAND or --snippet.',
    );
}

/** The saved snippet named by --snippet (the settings file every face shares). */
async function snippetNamed(name: string): Promise<Snippet> {
  const { jsonSettingsStore } = await import('../../../store/settings.js');
  const list = jsonSettingsStore().get().snippets;
  const found = findSnippet(list, name);
  if (!found) {
    const names = list.map((s) => escapeControls(s.name)).join(', ');
    throw new AppError(
      'NOT_FOUND',
      `No snippet named "${escapeControls(name)}".`,
      names ? `Saved snippets: ${names}.` : 'No snippets are saved yet; add them in the app under Settings → Snippets.',
    );
  }
  return found;
}

async function instanceOf(target: ConnectTarget, scope: AwsScope): Promise<Instance | undefined> {
  if (!target.instanceId) return undefined;
  const { findInstances } = await import('../../../aws/instances/lookup.js');
  const { matches } = await findInstances(target.instanceId, { ...scope, ...(target.region ? { regions: [target.region] } : {}) }, { eips: false });
  return matches.find((m) => m.id === target.instanceId);
}

/** Settings → Session logs (no settings file: the defaults, which log nothing unless asked). */
async function logSettings(): Promise<SessionLogSettings | null> {
  const [{ existsSync }, { jsonSettingsStore, settingsPath }] = await Promise.all([import('node:fs'), import('../../../store/settings.js')]);
  if (!existsSync(settingsPath())) return null;
  return jsonSettingsStore().get().sessionLog;
}

/** Resolves the snippet and opens the log/recording for a resolved target, before the connection is made. */
export async function prepareShellExtras(target: ConnectTarget, flags: ShellExtraFlags, scope: AwsScope, command: string[] = []): Promise<ShellExtras> {
  const settings = flags.log || flags.record || !command.length ? await logSettings() : null;
  // "Every session" logs an interactive shell in the Settings' format; flags ask for themselves.
  const always = !flags.log && !flags.record && !command.length && settings?.always;
  if (!flags.log && !flags.record && !always && !flags.snippet) return {};
  const snippet = flags.snippet ? await snippetNamed(flags.snippet) : undefined;
  const inst = await instanceOf(target, scope);
  const out: ShellExtras = {};
  if (snippet) {
    if (!snippetApplies(snippet, inst?.tags)) {
      throw new AppError(
        'INVALID_INPUT',
        `Snippet "${escapeControls(snippet.name)}" is kept for instances tagged ${escapeControls(`${snippet.tag!.key}=${snippet.tag!.value}`)}; ${escapeControls(target.label)} is not.`,
        "Pick a snippet for this instance, or change the snippet's tag in the app's Settings → Snippets.",
      );
    }
    out.keystrokes = snippetKeystrokes(snippet.command);
  }
  if (flags.log || flags.record || always) {
    const [{ Recording, formatRequest }, { logSubjectOf }] = await Promise.all([import('../../../log/recording.js'), import('../../../log/subject.js')]);
    const naming = { folder: settings?.folder ?? null, pattern: settings?.namePattern };
    const what = always
      ? formatRequest(settings!.format, settings!.timestamps)
      : {
          text: flags.log
            ? { path: typeof flags.log === 'string' ? flags.log : undefined, raw: !!flags.raw, timestamps: !!flags.timestamps }
            : (false as const),
          cast: flags.record ? { path: typeof flags.record === 'string' ? flags.record : undefined } : (false as const),
        };
    out.log = Recording.open(logSubjectOf(target, inst, command.length ? command.join(' ') : undefined), {
      ...what,
      naming,
      cols: process.stdout.columns || 80,
      rows: process.stdout.rows || 24,
      term: process.env.TERM || 'xterm-256color',
    });
  }
  return out;
}
