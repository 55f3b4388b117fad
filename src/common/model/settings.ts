import * as z from 'zod';
import { ALL_REGIONS, isRegionName } from '../vocab.js';
import { TRANSPORT_CHOICES } from './transport.js';
import { CONNECTION_DEFAULTS } from './settingsDefaults.js';
import { SnippetListSchema } from '../snippets.js';
import { InstanceLoginsSchema, LOGIN_USER } from '../login.js';
import { DEFAULT_LOG_PATTERN, patternProblem } from '../log/fileName.js';
import { TAG_JUMP_ALLOW_ENTRY } from '../jumpTag.js';
import { lookupUrlProblem } from '../lookupUrl.js';

// User settings shared by the app, the browser mode and the CLI (one file under the config dir).
// Nothing secret lives here: no credentials, no passphrases, no key material — only paths and names.

const TerminalThemeSchema = z.enum(['dark', 'light']);
export type TerminalTheme = z.infer<typeof TerminalThemeSchema>;

/**
 * Latin monospace first, then a CJK-capable monospace per platform (Linux, Windows, macOS), so a
 * Japanese Name tag or `ls` of Japanese file names shows glyphs, never empty boxes.
 */
export const DEFAULT_TERMINAL_FONT = '"DejaVu Sans Mono", Menlo, Consolas, "Noto Sans Mono CJK JP", "BIZ UDGothic", "MS Gothic", "Hiragino Sans", monospace';
/** The default before CJK fallbacks were named: a saved copy of it is read as today's default. */
const OLD_DEFAULT_TERMINAL_FONT = '"DejaVu Sans Mono", Menlo, Consolas, monospace';

const TerminalSettingsSchema = z.object({
  fontFamily: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .default(DEFAULT_TERMINAL_FONT)
    .transform((f) => (f === OLD_DEFAULT_TERMINAL_FONT ? DEFAULT_TERMINAL_FONT : f)),
  fontSize: z.number().int().min(8).max(32).default(13),
  theme: TerminalThemeSchema.default('dark'),
  /** Selected text goes to the clipboard as it is selected (Tera Term's default). */
  copyOnSelect: z.boolean().default(true),
  /** A right click pastes the clipboard (Tera Term's default) instead of opening a menu. */
  rightClickPaste: z.boolean().default(true),
  /** A dropped session reconnects by itself with growing pauses, keeping the scrollback (src/common/reconnect.ts). */
  reconnectAutomatically: z.boolean().default(false),
});

/** What a session log records: plain text, an asciicast v2 recording for replay (.cast), or both side by side. */
export const LOG_FORMATS = ['text', 'cast', 'both'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Session logs (src/node/log): every session, or only those a tab's "Log to file" starts. */
export const SessionLogSettingsSchema = z.object({
  always: z.boolean().default(false),
  timestamps: z.boolean().default(false),
  /** Where logs go; null = the config dir's logs/. */
  folder: z.string().trim().min(1).max(1000).nullable().default(null),
  /** File names: {name} {instanceId} {region} {user} {type} and date letters in braces (src/common/log/fileName.ts). */
  namePattern: z
    .string()
    .trim()
    .max(200)
    .superRefine((p, ctx) => {
      const problem = patternProblem(p);
      if (problem) ctx.addIssue({ code: 'custom', message: `a file name pattern without ${problem}` });
    })
    .default(DEFAULT_LOG_PATTERN),
  format: z.enum(LOG_FORMATS).default('text'),
});
export type SessionLogSettings = z.infer<typeof SessionLogSettingsSchema>;

const optionalText = z.string().trim().min(1).max(500).nullable();

export const SettingsSchema = z.object({
  /** AWS profile in use; null = the default credential chain. */
  profile: optionalText.default(null),
  /** Extra profile names offered in the picker (those in ~/.aws/config are discovered anyway). */
  profiles: z.array(z.string().trim().min(1).max(200)).max(100).default([]),
  /** Regions listed; [] = the profile's default region; ['all'] = every enabled region. */
  regions: z
    .array(z.string().refine((r) => r === ALL_REGIONS || isRegionName(r), 'a region like eu-west-1, or "all"'))
    .max(40)
    .default([]),
  /** Login user unless a flag, the instance's "Connect as…" or its tagssh:user tag says otherwise; null = guess from the AMI (src/common/login.ts). */
  defaultUser: z.string().regex(LOGIN_USER, 'a POSIX user name').nullable().default(CONNECTION_DEFAULTS.defaultUser),
  /** Default private key file (a path; the key itself is never read into settings). */
  identityFile: optionalText.default(CONNECTION_DEFAULTS.identityFile),
  port: z.number().int().min(1).max(65535).default(CONNECTION_DEFAULTS.port),
  /** Jump host as [user@]host[:port] or an instance Name; null = direct. */
  jumpHost: optionalText.default(CONNECTION_DEFAULTS.jumpHost),
  /**
   * Hosts outside EC2 that an instance's tagssh:jump tag may send connections through ("host" or
   * "host:port"); a tag naming any other outside host is refused (src/common/jumpTag.ts).
   */
  tagJumpHosts: z.array(z.string().trim().regex(TAG_JUMP_ALLOW_ENTRY, 'a host name or address, optionally with :port')).max(100).default([]),
  /** How instances are reached unless their tagssh:transport tag says otherwise (src/node/transport/choose.ts). */
  transport: z.enum(TRANSPORT_CHOICES).default(CONNECTION_DEFAULTS.transport),
  /**
   * EC2 Instance Connect keys: offered after a refused login ('ask': a button, a terminal prompt),
   * pushed first on every login, or never. 'fallback' (earlier versions' default, saved without
   * being chosen) reads as 'ask': a key is pushed only when someone asked for it.
   */
  instanceConnect: z
    .enum(['ask', 'always', 'never', 'fallback'])
    .default('ask')
    .transform((v) => (v === 'fallback' ? 'ask' : v)),
  /** Per-instance "Connect as…" (user, key file, port) by instance id; see src/common/login.ts. */
  connectAs: InstanceLoginsSchema.default({}),
  /** Forward the ssh-agent to the instance (OpenSSH's ForwardAgent): only to hosts you trust. */
  agentForward: z.boolean().default(false),
  /** Send LANG and LC_* as OpenSSH's `SendEnv LANG LC_*` does, so the shell keeps the local language and character set. */
  sendLocale: z.boolean().default(true),
  terminal: TerminalSettingsSchema.prefault({}),
  /** The app's language: 'auto' follows the OS locale. The CLI stays English. */
  language: z.enum(['auto', 'en', 'ja']).default('auto'),
  /** Where to look up this machine's public IP when a connect times out ("my IP changed"); null = checkip.amazonaws.com. */
  myIpUrl: z
    .string()
    .trim()
    .url()
    .max(500)
    .refine((u) => lookupUrlProblem(u) === null, 'an https URL (http only to 127.0.0.1 or localhost)')
    .nullable()
    .default(null),
  /** Saved commands typed into a shell on request (src/common/snippets.ts). */
  snippets: SnippetListSchema.default([]),
  sessionLog: SessionLogSettingsSchema.prefault({}),
  /** After a restart, the previous run's terminal tabs (with their file panels) and tunnels: reopened after asking, always, or never (src/common/workspace). */
  restoreTabs: z.enum(['ask', 'always', 'never']).default('ask'),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const SETTINGS_SCHEMA_VERSION = 1;

export function defaultSettings(): Settings {
  return SettingsSchema.parse({});
}
