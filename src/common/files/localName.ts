// Whether a name that came from a server may become one entry of a local directory. A recursive
// copy joins the names a directory listing gave to the destination; a hostile server can list
// `../../.ssh/authorized_keys`, `/etc/x` or `./..` (CVE-2019-6111, CVE-2018-20685), so every
// name must be exactly one plain path component on the machine that writes it. One rule for the
// copy and its tests; the platform is a parameter so that both are tested wherever tests run.

import { escapeControls } from '../safeText.js';
import { nameProblem } from './paths.js';

export type NamePlatform = 'posix' | 'win32';

type LocalNameProblem =
  | 'empty'
  | 'dot'
  | 'slash'
  | 'nul'
  | 'long'
  /** Windows: `\` separates paths there. */
  | 'backslash'
  /** Windows: `:` names a drive (`C:x`) or an alternate data stream (`x:stream`). */
  | 'colon'
  /** Windows: CON, PRN, AUX, NUL, COM1-9, LPT1-9 (with any extension) open a device, not a file. */
  | 'device'
  /** Windows: `< > " | ? *` and control characters are not allowed in a name. */
  | 'reserved'
  /** Windows drops trailing dots and spaces, so `.. ` would mean `..` and `a.` would mean `a`. */
  | 'trailing';

const WIN_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const WIN_RESERVED = /[<>"|?*\u0000-\u001f]/;

/** Why `name` cannot be one entry of a local directory on `platform`, or null when it can. */
export function localNameProblem(name: string, platform: NamePlatform): LocalNameProblem | null {
  const common = nameProblem(name);
  if (common) return common;
  if (platform === 'posix') return null;
  if (name.includes('\\')) return 'backslash';
  if (name.includes(':')) return 'colon';
  if (/[. ]$/.test(name)) return /^[. ]+$/.test(name) ? 'dot' : 'trailing';
  if (WIN_RESERVED.test(name)) return 'reserved';
  if (WIN_DEVICE.test(name.trim())) return 'device';
  return null;
}

/** The platform rule of the machine this runs on (`process.platform` as a plain string). */
export function namePlatformOf(platform: string): NamePlatform {
  return platform === 'win32' ? 'win32' : 'posix';
}

/** A name from a server as it may be printed: quoted, with control characters (NUL, ESC…) made visible. */
export function quoteName(name: string): string {
  return `"${escapeControls(name)}"`;
}

const WHY: Record<LocalNameProblem, string> = {
  empty: 'it is empty',
  dot: 'it means this directory or the one above',
  slash: 'it holds a /',
  nul: 'it holds a NUL character',
  long: 'it is longer than 255 bytes',
  backslash: 'it holds a \\ (a path separator on Windows)',
  colon: 'it holds a : (a drive or stream on Windows)',
  device: 'it names a Windows device',
  reserved: 'it holds a character Windows does not allow in names',
  trailing: 'it ends in a dot or space, which Windows drops',
};

/** Words for a problem, e.g. "it holds a /". */
export function localNameWhy(problem: LocalNameProblem): string {
  return WHY[problem];
}
