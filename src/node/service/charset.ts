import iconv from 'iconv-lite';
import type { Charset } from '../../common/charset.js';

// A session's bytes ↔ the text the terminal shows and types, in the session's character set.
// Decoding streams (a character split across two SSH packets is held until its last byte);
// UTF-8 passes through Node's own decoder, the others through iconv-lite, which also encodes
// typed text back (there is no built-in Shift_JIS or EUC-JP encoder).

export interface TextDecoderStream {
  write(chunk: Buffer): string;
  end(): string;
}

export function decoderFor(charset: Charset): TextDecoderStream {
  const d = iconv.getDecoder(charset);
  return { write: (chunk) => d.write(chunk), end: () => d.end() ?? '' };
}

/** Typed text as the bytes the server expects; UTF-8 stays a string (ssh2 writes it as is). */
export function encodeInput(charset: Charset, text: string): string | Buffer {
  return charset === 'utf-8' ? text : iconv.encode(text, charset);
}
