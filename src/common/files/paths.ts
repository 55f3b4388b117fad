// Remote (POSIX) paths as the file panel handles them: the server's paths are '/'-separated
// whatever machine the app runs on, so node:path (which follows the local OS) is not used. One
// definition of what a single name may be, shared by the contract's checks and the panel.

import { utf8Length } from '../export/encoding.js';

/** Longest remote path the panel sends (Linux PATH_MAX). */
export const REMOTE_PATH_MAX = 4096;
/** Longest single name (Linux NAME_MAX, in UTF-8 bytes). */
const NAME_MAX_BYTES = 255;

/** Why `name` cannot be one entry of a directory, or null when it can. */
export function nameProblem(name: string): 'empty' | 'dot' | 'slash' | 'nul' | 'long' | null {
  if (name === '') return 'empty';
  if (name === '.' || name === '..') return 'dot';
  if (name.includes('/')) return 'slash';
  if (name.includes('\0')) return 'nul';
  if (utf8Length(name) > NAME_MAX_BYTES) return 'long';
  return null;
}

/** `dir` joined with one name ('/' + 'etc' = '/etc'). */
export function joinRemote(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

/** The directory above `path` ('/' stays '/'). */
export function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const at = trimmed.lastIndexOf('/');
  return at <= 0 ? '/' : trimmed.slice(0, at);
}

/** The last name of `path` ('/' for the root). */
export function baseOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || '/';
}

/** Each step from the root to `path`, for breadcrumbs: [{name:'/',path:'/'},{name:'home',path:'/home'}…]. */
export function crumbsOf(path: string): Array<{ name: string; path: string }> {
  const out = [{ name: '/', path: '/' }];
  let at = '';
  for (const part of path.split('/').filter(Boolean)) {
    at = `${at}/${part}`;
    out.push({ name: part, path: at });
  }
  return out;
}

/** The temp name an upload is written to until it is complete (never mistaken for the file). */
export function partNameOf(name: string, transferId: string): string {
  const suffix = `.tagssh-part-${transferId.slice(0, 8)}`;
  // Keep within NAME_MAX: shorten the visible part, never the marker.
  const chars = [...`.${name}`];
  while (utf8Length(chars.join('') + suffix) > NAME_MAX_BYTES) chars.pop();
  return chars.join('') + suffix;
}
