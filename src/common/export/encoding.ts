// Byte-level helpers the exporters need without Node's Buffer or the DOM's TextEncoder
// (src/common runs in every layer). Lone surrogates become U+FFFD, as TextEncoder does.

/** The UTF-8 bytes of a string. */
function utf8Bytes(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    let cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return out;
}

/** Length of a string in UTF-8 bytes: the unit TeraTerm's line and string limits count. */
export function utf8Length(s: string): number {
  return utf8Bytes(s).length;
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * base64url (RFC 4648 §5, no padding) of the UTF-8 bytes. Its alphabet [A-Za-z0-9_-] means
 * nothing in cmd.exe, POSIX sh, TTL or ssh_config, which is why names travel in this form.
 */
export function base64UrlUtf8(s: string): string {
  const b = utf8Bytes(s);
  let out = '';
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += B64URL[(n >> 18) & 63]! + B64URL[(n >> 12) & 63]!;
    if (i + 1 < b.length) out += B64URL[(n >> 6) & 63]!;
    if (i + 2 < b.length) out += B64URL[n & 63]!;
  }
  return out;
}

/** Cuts a string to at most maxBytes UTF-8 bytes on a code point boundary, marking the cut with "…". */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (utf8Length(s) <= maxBytes) return s;
  let out = '';
  let used = 0;
  const budget = maxBytes - 3; // "…" is 3 bytes
  for (const ch of s) {
    const n = utf8Length(ch);
    if (used + n > budget) break;
    out += ch;
    used += n;
  }
  return `${out}…`;
}
