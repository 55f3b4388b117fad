import { AppError } from '../../common/errors.js';

// `--name-b64`: the Name tag as base64url of its UTF-8 bytes. Exported TeraTerm macros and ssh
// configs pass names this way so that cmd.exe and /bin/sh see only [A-Za-z0-9_-], whatever the
// name holds (quotes, %, &, ^, newlines…). Kept tiny: `tagssh resolve` imports it at start-up.

export function decodeNameB64(encoded: string): string {
  const s = encoded.trim();
  if (!/^[A-Za-z0-9_+/-]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1) {
    throw new AppError('INVALID_INPUT', '--name-b64 is not base64url.', 'Export the macro or config again with `tagssh export`.');
  }
  const bytes = Buffer.from(s.replace(/\+/g, '-').replace(/\//g, '_'), 'base64url');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AppError('INVALID_INPUT', '--name-b64 does not decode to UTF-8 text.', 'Export the macro or config again with `tagssh export`.');
  }
}

/** The NAME argument or the decoded --name-b64 (exactly one of them). */
export function nameFromArgs(name: string | undefined, nameB64: string | undefined): string {
  if (name !== undefined && nameB64 !== undefined) throw new AppError('INVALID_INPUT', 'Give either NAME or --name-b64, not both.');
  if (nameB64 !== undefined) {
    const decoded = decodeNameB64(nameB64);
    if (decoded === '') throw new AppError('INVALID_INPUT', '--name-b64 decodes to an empty name.');
    return decoded;
  }
  if (name === undefined || name === '')
    throw new AppError('INVALID_INPUT', 'Missing NAME (a Name tag value or an instance id).', 'Example: tagssh resolve web-1');
  return name;
}
