// Tera Term Language lines → tokens, as ttpmacro reads them (teraterm/ttpmacro/ttmparse.cpp and
// the manual's "Line formats", "Formats of constants", "Identifiers"): `;` starts a comment,
// /* … */ may span lines, a string constant is quoted runs ('…' or "…", no escapes, no control
// characters) and #N / #$hh character codes written back to back; integers are decimal or $hex;
// identifiers are case-insensitive; a line of the form :NAME is a label.

export type Tok = { t: 'id'; v: string } | { t: 'num'; v: number } | { t: 'str'; v: string } | { t: 'op'; v: string } | { t: 'label'; v: string };

interface LexedLine {
  line: number;
  toks: Tok[];
  /** A string constant or code the lexer could not read (reported, line skipped). */
  error?: string;
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
  '(',
  ')',
  '[',
  ']',
  ',',
  '!',
  '~',
  '&',
  '|',
  '^',
];

/** Splits a macro's text into lines of tokens; comments (both kinds) are gone. */
export function lexTtl(text: string): LexedLine[] {
  const out: LexedLine[] = [];
  let inComment = false;
  text.split(/\r\n|\r|\n/).forEach((src, idx) => {
    const r = lexLine(src, inComment);
    inComment = r.inComment;
    if (r.toks.length || r.error) out.push({ line: idx + 1, toks: r.toks, ...(r.error ? { error: r.error } : {}) });
  });
  return out;
}

function lexLine(s: string, commenting: boolean): { toks: Tok[]; inComment: boolean; error?: string } {
  const toks: Tok[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    if (commenting) {
      const end = s.indexOf('*/', i);
      if (end < 0) return { toks, inComment: true };
      commenting = false;
      i = end + 2;
      continue;
    }
    const c = s[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === ';') break;
    if (c === '/' && s[i + 1] === '*') {
      commenting = true;
      i += 2;
      continue;
    }
    if (c === ':' && toks.length === 0) {
      const m = /^:([A-Za-z0-9_]+)/.exec(s.slice(i));
      if (m) {
        toks.push({ t: 'label', v: m[1]!.toLowerCase() });
        i += m[0].length;
        continue;
      }
    }
    if (c === "'" || c === '"' || (c === '#' && /[0-9$]/.test(s[i + 1] ?? ''))) {
      const r = readString(s, i);
      if ('error' in r) return { toks, inComment: false, error: r.error };
      toks.push({ t: 'str', v: r.value });
      i = r.end;
      continue;
    }
    if (c === '$' && /[0-9A-Fa-f]/.test(s[i + 1] ?? '')) {
      const m = /^\$([0-9A-Fa-f]+)/.exec(s.slice(i))!;
      toks.push({ t: 'num', v: parseInt(m[1]!, 16) | 0 });
      i += m[0].length;
      continue;
    }
    if (/[0-9]/.test(c)) {
      const m = /^[0-9]+/.exec(s.slice(i))!;
      toks.push({ t: 'num', v: Number(m[0]) | 0 });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i))!;
      toks.push({ t: 'id', v: m[0].toLowerCase() });
      i += m[0].length;
      continue;
    }
    const op = OPS.find((o) => s.startsWith(o, i));
    if (!op) return { toks, inComment: false, error: s.slice(i, i + 20) };
    toks.push({ t: 'op', v: op });
    i += op.length;
  }
  return { toks, inComment: commenting };
}

/** A string constant at `i`: quoted runs and character codes, back to back. */
function readString(s: string, i: number): { value: string; end: number } | { error: string } {
  let value = '';
  for (;;) {
    const c = s[i];
    if (c === "'" || c === '"') {
      const end = s.indexOf(c, i + 1);
      if (end < 0) return { error: s.slice(i, i + 40) };
      const run = s.slice(i + 1, end);
      // eslint-disable-next-line no-control-regex -- ttpmacro refuses control characters in a constant
      if (/[\x00-\x08\x0a-\x1f]/.test(run)) return { error: s.slice(i, i + 40) };
      value += run;
      i = end + 1;
    } else if (c === '#') {
      const m = /^#(\$[0-9A-Fa-f]+|[0-9]+)/.exec(s.slice(i));
      if (!m) return { error: s.slice(i, i + 10) };
      const code = m[1]!.startsWith('$') ? parseInt(m[1]!.slice(1), 16) : Number(m[1]);
      if (code <= 0 || code > 255) return { error: m[0] };
      value += String.fromCharCode(code);
      i += m[0].length;
    } else return { value, end: i };
  }
}
