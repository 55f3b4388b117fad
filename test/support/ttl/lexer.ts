// A lexer for Tera Term Language written from the documented grammar (doc/en/html/macro/syntax)
// and the parser's own rules (teraterm/ttpmacro/ttmparse.cpp):
//  - a string constant is quoted runs ('…' or "…", same quote both sides, NO escape character,
//    no control character but TAB inside, closed on the same line) and #N / #$hex codes
//    (1..255), written back to back with no space between; their values are joined;
//  - a string value holds at most 511 bytes (MaxStrLen 512 with the NUL), a line 1023 (MaxLineLen 1024);
//  - `;` starts a comment outside strings; `/* … */` comments may span lines;
//  - identifiers [A-Za-z_][A-Za-z0-9_]*, case-insensitive; labels `:name` at the start of a line.
// Anything else is reported as an error with its line number, never guessed.

export const MAX_STRING_BYTES = 511;
export const MAX_LINE_BYTES = 1023;

export type Token =
  | { kind: 'ident'; text: string; lower: string }
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string; raw: string }
  | { kind: 'op'; text: string };

export interface Line {
  no: number;
  text: string;
  label?: string;
  tokens: Token[];
}

export class TtlSyntaxError extends Error {
  constructor(
    readonly lineNo: number,
    message: string,
  ) {
    super(`line ${lineNo}: ${message}`);
  }
}

const OPS = [
  '>>>',
  '<<',
  '>>',
  '<>',
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '^',
  '~',
  '!',
  '(',
  ')',
  '[',
  ']',
  ',',
];

export function lex(source: string): Line[] {
  if (source.startsWith('\ufeff')) throw new TtlSyntaxError(1, 'file starts with a byte order mark');
  if (/\r(?!\n)/.test(source)) throw new TtlSyntaxError(0, 'lone CR line break');
  const rawLines = source.split(/\r?\n/);
  if (rawLines.at(-1) === '') rawLines.pop();
  const out: Line[] = [];
  let inComment = false;
  rawLines.forEach((text, i) => {
    const no = i + 1;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_LINE_BYTES) throw new TtlSyntaxError(no, `line is ${bytes} bytes (max ${MAX_LINE_BYTES})`);
    const line: Line = { no, text, tokens: [] };
    let p = 0;
    const n = text.length;
    const skipWs = () => {
      while (p < n && (text[p] === ' ' || text[p] === '\t')) p++;
    };
    while (p < n) {
      if (inComment) {
        const e = text.indexOf('*/', p);
        if (e < 0) {
          p = n;
          break;
        }
        p = e + 2;
        inComment = false;
        continue;
      }
      skipWs();
      if (p >= n) break;
      const c = text[p]!;
      if (c === ';') break;
      if (c === '/' && text[p + 1] === '*') {
        inComment = true;
        p += 2;
        continue;
      }
      if (c === ':' && line.tokens.length === 0 && line.label === undefined) {
        const m = /^:([A-Za-z0-9_]+)/.exec(text.slice(p));
        if (!m) throw new TtlSyntaxError(no, 'bad label');
        line.label = m[1]!.toLowerCase();
        p += m[0].length;
        continue;
      }
      if (c === "'" || c === '"' || c === '#') {
        let value = '';
        const start = p;
        while (p < n && (text[p] === "'" || text[p] === '"' || text[p] === '#')) {
          const q = text[p]!;
          p++;
          if (q === '#') {
            const m = /^(\$[0-9A-Fa-f]+|[0-9]+)/.exec(text.slice(p));
            if (!m) throw new TtlSyntaxError(no, 'bad character code after #');
            const code = m[1]!.startsWith('$') ? parseInt(m[1]!.slice(1), 16) : parseInt(m[1]!, 10);
            if (code < 1 || code > 255) throw new TtlSyntaxError(no, `character code #${m[1]} out of range 1..255`);
            value += String.fromCharCode(code);
            p += m[0].length;
          } else {
            const close = text.indexOf(q, p);
            if (close < 0) throw new TtlSyntaxError(no, `unterminated ${q} string`);
            const body = text.slice(p, close);
            // eslint-disable-next-line no-control-regex
            if (/[\x00-\x08\x0a-\x1f]/.test(body)) throw new TtlSyntaxError(no, 'control character inside a string literal');
            value += body;
            p = close + 1;
          }
        }
        const vb = Buffer.byteLength(value, 'utf8');
        if (vb > MAX_STRING_BYTES) throw new TtlSyntaxError(no, `string constant is ${vb} bytes (max ${MAX_STRING_BYTES})`);
        line.tokens.push({ kind: 'string', value, raw: text.slice(start, p) });
        continue;
      }
      if (/[A-Za-z_]/.test(c)) {
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(p))!;
        if (m[0].length > 32) throw new TtlSyntaxError(no, `identifier ${m[0]} longer than 32`);
        line.tokens.push({ kind: 'ident', text: m[0], lower: m[0].toLowerCase() });
        p += m[0].length;
        continue;
      }
      if (/[0-9$]/.test(c)) {
        const m = /^(\$[0-9A-Fa-f]+|[0-9]+)/.exec(text.slice(p));
        if (!m) throw new TtlSyntaxError(no, 'bad number');
        line.tokens.push({ kind: 'number', value: m[1]!.startsWith('$') ? parseInt(m[1]!.slice(1), 16) : parseInt(m[1]!, 10) });
        p += m[0].length;
        continue;
      }
      const op = OPS.find((o) => text.startsWith(o, p));
      if (!op) throw new TtlSyntaxError(no, `unexpected character ${JSON.stringify(c)}`);
      line.tokens.push({ kind: 'op', text: op });
      p += op.length;
    }
    out.push(line);
  });
  if (inComment) throw new TtlSyntaxError(rawLines.length, 'unterminated /* comment');
  return out;
}
