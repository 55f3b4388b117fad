// Which encoding a macro or batch file is in, decided the way Tera Term decides for a macro
// (doc/en/html/macro/syntax/file.html): a BOM names UTF-8 or UTF-16; without one the file is read
// as UTF-8 when it is valid UTF-8, else in the ANSI code page — for the people this is for,
// Japanese Windows' CP932 (Shift_JIS), which is also what cmd.exe reads batch files in.

export type TextEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'shift_jis';

/** True when the bytes are well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF). */
export function isUtf8(b: Uint8Array): boolean {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0 || i + n >= b.length) return false;
    const c1 = b[i + 1]!;
    if (c === 0xe0 && c1 < 0xa0) return false; // overlong
    if (c === 0xed && c1 > 0x9f) return false; // surrogate
    if (c === 0xf0 && c1 < 0x90) return false; // overlong
    if (c === 0xf4 && c1 > 0x8f) return false; // past U+10FFFF
    for (let k = 1; k <= n; k++) if ((b[i + k]! & 0xc0) !== 0x80) return false;
    i += n + 1;
  }
  return true;
}

export function detectEncoding(b: Uint8Array): TextEncoding {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8-bom';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  return isUtf8(b) ? 'utf-8' : 'shift_jis';
}
