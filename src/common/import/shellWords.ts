import { joinValues, type SourceRef, type Unknown, type Value } from './types.js';

// Command lines of cmd.exe batch files and POSIX shell scripts, split into commands and words
// with their variables expanded. A variable the file never sets, a parameter (%1, $1) or a
// command substitution whose output cannot be known becomes an unknown part that says where it
// came from (and, for an aws CLI call, which look-up answered it).

export interface Command {
  argv: Value[];
  /** `> FILE` / `>> FILE`: where the command's output went. */
  out?: Value;
}

/** Variables: their value(s). Several values = set differently on different branches. */
type VarLookup = (name: string) => Value | undefined;

function unknownPart(from: string, at: SourceRef, env?: string): Unknown {
  return env ? { from, at, env } : { from, at };
}

/** Environment variables a Windows or Unix key path is commonly built from. */
const ENV_VARS = new Set(['USERPROFILE', 'HOMEPATH', 'HOMEDRIVE', 'APPDATA', 'LOCALAPPDATA', 'HOME', 'USERNAME', 'USER', 'TEMP', 'TMP']);

// ---- cmd.exe ----------------------------------------------------------------------------------

/** Expands %VAR%, !VAR!, %~dp0 and %N in one line of a batch file. */
export function expandCmd(line: string, vars: VarLookup, at: SourceRef): Value {
  const out: Value = [];
  let last = 0;
  for (const m of line.matchAll(/%%|%~[a-z]*(\d)|%(\d)|%([^%\s=][^%=]*?)%|!([^!\s=]+)!/gi)) {
    out.push(line.slice(last, m.index));
    last = m.index! + m[0].length;
    if (m[0] === '%%') out.push('%');
    else if (m[1] === '0') out.push({ from: '%~dp0', at });
    else if (m[1] !== undefined || m[2] !== undefined) out.push(unknownPart(`%${m[1] ?? m[2]}`, at));
    else {
      const name = (m[3] ?? m[4])!;
      const v = vars(name.toUpperCase());
      out.push(...(v ?? [unknownPart(`%${name}%`, at, ENV_VARS.has(name.toUpperCase()) ? name.toUpperCase() : undefined)]));
    }
  }
  out.push(line.slice(last));
  return joinValues(out);
}

/** Splits an expanded cmd.exe line into commands (& && | ||) and words; ^ escapes, "" quotes. */
export function cmdCommands(line: Value): Command[] {
  return splitCommands(line, 'cmd');
}

// ---- POSIX sh ---------------------------------------------------------------------------------

/** Splits a POSIX shell line into commands and words, expanding $VAR/${VAR}; $(…) and `…` go to `subst`. */
export function shCommands(line: string, vars: VarLookup, at: SourceRef, subst: (inner: string) => Value): Command[] {
  const marked = expandSh(line, vars, at, subst);
  return splitCommands(marked, 'sh');
}

/** Expands a shell line; single-quoted text is kept as is (quotes stay, for the word splitter). */
function expandSh(line: string, vars: VarLookup, at: SourceRef, subst: (inner: string) => Value): Value {
  const out: Value = [];
  let i = 0;
  let text = '';
  let dq = false;
  const flush = () => {
    out.push(text);
    text = '';
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'" && !dq) {
      const end = line.indexOf("'", i + 1);
      const stop = end < 0 ? line.length : end + 1;
      text += line.slice(i, stop);
      i = stop;
    } else if (c === '"') {
      dq = !dq;
      text += c;
      i++;
    } else if (c === '\\' && i + 1 < line.length) {
      text += line.slice(i, i + 2);
      i += 2;
    } else if (c === '#' && !dq && (i === 0 || /\s/.test(line[i - 1]!))) break;
    else if (c === '$' && line[i + 1] === '(' && line[i + 2] !== '(') {
      const end = matching(line, i + 1);
      flush();
      out.push(...subst(line.slice(i + 2, end)));
      i = end + 1;
    } else if (c === '`') {
      const end = line.indexOf('`', i + 1);
      const stop = end < 0 ? line.length : end;
      flush();
      out.push(...subst(line.slice(i + 1, stop)));
      i = stop + 1;
    } else if (c === '$') {
      const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+)(?::?-([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*)|([0-9]))/.exec(line.slice(i));
      if (!m) {
        text += c;
        i++;
        continue;
      }
      flush();
      const name = m[1] ?? m[3];
      const v = name && !/^\d/.test(name) ? vars(name) : undefined;
      if (v) out.push(...v);
      else if (m[2] !== undefined) out.push(m[2]);
      else out.push(unknownPart(name ? `$${name}` : `$${m[4]}`, at, name && ENV_VARS.has(name) ? name : undefined));
      i += m[0].length;
    } else {
      text += c;
      i++;
    }
  }
  flush();
  return joinValues(out);
}

function matching(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && --depth === 0) return i;
  }
  return s.length;
}

// ---- shared word splitting ----------------------------------------------------------------------

function splitCommands(line: Value, dialect: 'cmd' | 'sh'): Command[] {
  const cmds: Command[] = [];
  let argv: Value[] = [];
  let word: Value = [];
  let inWord = false;
  let quote = '';
  let redirect = false;
  let out: Value | undefined;
  const endWord = () => {
    if (!inWord) return;
    const w = joinValues(word);
    if (redirect) {
      out = w;
      redirect = false;
    } else argv.push(w);
    word = [];
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (argv.length) cmds.push({ argv, ...(out ? { out } : {}) });
    argv = [];
    out = undefined;
  };
  for (const part of line) {
    if (typeof part !== 'string') {
      word.push(part);
      inWord = true;
      continue;
    }
    for (let i = 0; i < part.length; i++) {
      const c = part[i]!;
      if (quote) {
        if (c === quote) quote = '';
        else if (c === '\\' && quote === '"' && dialect === 'sh' && /["\\$`]/.test(part[i + 1] ?? '')) word.push(part[++i]!);
        else word.push(c);
        continue;
      }
      if (c === '"' || (c === "'" && dialect === 'sh')) {
        quote = c;
        inWord = true;
      } else if ((c === '^' && dialect === 'cmd') || (c === '\\' && dialect === 'sh')) {
        if (i + 1 < part.length) word.push(part[++i]!);
        inWord = true;
      } else if (c === ' ' || c === '\t') endWord();
      else if (c === '&' || c === '|' || (c === ';' && dialect === 'sh')) {
        if (c === '&' && /\d?>$/.test(joinValues(word).join('')))
          word.push(c); // 2>&1
        else {
          endCommand();
          if (part[i + 1] === c) i++;
        }
      } else if (c === '>' || c === '<') {
        // 2>&1, >NUL, > file: the target is the next word.
        const fd = joinValues(word);
        if (inWord && fd.length === 1 && typeof fd[0] === 'string' && /^\d$/.test(fd[0])) {
          word = [];
          inWord = false;
        } else endWord();
        if (part[i + 1] === '>') i++;
        if (part[i + 1] === '&') {
          i += 2;
          continue;
        }
        redirect = c === '>';
        if (c === '<') redirect = false;
      } else {
        word.push(c);
        inWord = true;
      }
    }
  }
  endCommand();
  return cmds;
}
