import { z } from 'zod';
import { ALL_REGIONS, isRegionName } from '../vocab.js';
import { TRANSPORT_CHOICES } from './transport.js';
import { SnippetListSchema } from '../snippets.js';

// User settings shared by the app, the browser mode and the CLI (one file under the config dir).
// Nothing secret lives here: no credentials, no passphrases, no key material — only paths and names.

export const TerminalThemeSchema = z.enum(['dark', 'light']);
export type TerminalTheme = z.infer<typeof TerminalThemeSchema>;

/**
 * Latin monospace first, then a CJK-capable monospace per platform (Linux, Windows, macOS), so a
 * Japanese Name tag or `ls` of Japanese file names shows glyphs, never empty boxes.
 */
export const DEFAULT_TERMINAL_FONT = '"DejaVu Sans Mono", Menlo, Consolas, "Noto Sans Mono CJK JP", "BIZ UDGothic", "MS Gothic", "Hiragino Sans", monospace';
/** The default before CJK fallbacks were named: a saved copy of it is read as today's default. */
const OLD_DEFAULT_TERMINAL_FONT = '"DejaVu Sans Mono", Menlo, Consolas, monospace';

export const TerminalSettingsSchema = z.object({
  fontFamily: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .default(DEFAULT_TERMINAL_FONT)
    .transform((f) => (f === OLD_DEFAULT_TERMINAL_FONT ? DEFAULT_TERMINAL_FONT : f)),
  fontSize: z.number().int().min(8).max(32).default(13),
  theme: TerminalThemeSchema.default('dark'),
});
export type TerminalSettings = z.infer<typeof TerminalSettingsSchema>;

/** Session logs (src/node/log): every session, or only those a tab's "Log to file" starts. */
export const SessionLogSettingsSchema = z.object({
  always: z.boolean().default(false),
  timestamps: z.boolean().default(false),
});

const optionalText = z.string().trim().min(1).max(500).nullable().default(null);

export const SettingsSchema = z.object({
  /** AWS profile in use; null = the default credential chain. */
  profile: optionalText,
  /** Extra profile names offered in the picker (those in ~/.aws/config are discovered anyway). */
  profiles: z.array(z.string().trim().min(1).max(200)).max(100).default([]),
  /** Regions listed; [] = the profile's default region; ['all'] = every enabled region. */
  regions: z
    .array(z.string().refine((r) => r === ALL_REGIONS || isRegionName(r), 'a region like eu-west-1, or "all"'))
    .max(40)
    .default([]),
  /** Default login user when no tag or AMI rule applies; null = guess from the AMI. */
  defaultUser: z
    .string()
    .regex(/^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/, 'a POSIX user name')
    .nullable()
    .default(null),
  /** Default private key file (a path; the key itself is never read into settings). */
  identityFile: optionalText,
  port: z.number().int().min(1).max(65535).default(22),
  /** Jump host as [user@]host[:port] or an instance Name; null = direct. */
  jumpHost: optionalText,
  /** How instances are reached unless their tagssh:transport tag says otherwise (src/node/transport/choose.ts). */
  transport: z.enum(TRANSPORT_CHOICES).default('auto'),
  /** EC2 Instance Connect keys: pushed when no key of yours is accepted, always first, or never. */
  instanceConnect: z.enum(['fallback', 'always', 'never']).default('fallback'),
  terminal: TerminalSettingsSchema.prefault({}),
  /** The app's language: 'auto' follows the OS locale. The CLI stays English. */
  language: z.enum(['auto', 'en', 'ja']).default('auto'),
  /** Where to look up this machine's public IP when a connect times out ("my IP changed"); null = checkip.amazonaws.com. */
  myIpUrl: z
    .string()
    .trim()
    .url()
    .max(500)
    .refine((u) => /^https?:\/\//i.test(u), 'an http(s) URL')
    .nullable()
    .default(null),
  /** Saved commands typed into a shell on request (src/common/snippets.ts). */
  snippets: SnippetListSchema.default([]),
  sessionLog: SessionLogSettingsSchema.prefault({}),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const SETTINGS_SCHEMA_VERSION = 1;

export function defaultSettings(): Settings {
  return SettingsSchema.parse({});
}
