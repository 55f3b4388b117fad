import type { Expr } from './ttlProgram.js';
import { joinValues, knownText, type SourceRef, type Unknown, type Value } from './types.js';

// TTL values while a macro is read without running it: strings whose parts may be unknown
// (typed into an inputbox, read from a file the aws CLI wrote…) and integers that may be unknown
// (`result` after a dialog). Arithmetic on known integers is TTL's (32-bit); anything touching an
// unknown is unknown, and a condition that is unknown makes the reader follow both ways.

export type Val = { s: Value } | { n: number | null };

export interface Vars {
  get(name: string): Val | undefined;
}

interface Arrays {
  get(name: string): Map<number, Val> | undefined;
}

export const UNKNOWN_INT: Val = { n: null };

export function str(v: Value | string): Val {
  return { s: typeof v === 'string' ? [v] : v };
}

/** The value of a string argument (an integer is written in decimal, as TTL's auto-conversion does). */
export function asValue(v: Val): Value {
  if ('s' in v) return v.s;
  return v.n === null ? [{ from: 'integer', at: { file: '', line: 0 } }] : [String(v.n)];
}

export function asInt(v: Val): number | null {
  if ('n' in v) return v.n;
  const t = knownText(v.s);
  return t !== null && /^-?\d+$/.test(t.trim()) ? Number(t.trim()) | 0 : null;
}

function unknownAt(from: string, at: SourceRef): Unknown {
  return { from, at };
}

/** Evaluates an expression; an undefined variable is unknown (ttpmacro would stop there). */
export function evaluate(e: Expr, vars: Vars, arrays: Arrays, at: SourceRef): Val {
  switch (e.k) {
    case 'str':
      return str(e.v);
    case 'num':
      return { n: e.v };
    case 'var': {
      if (e.index) {
        const i = asInt(evaluate(e.index, vars, arrays, at));
        const arr = arrays.get(e.name);
        const v = i === null ? undefined : arr?.get(i);
        return v ?? (arr && [...arr.values()].every((x) => 'n' in x) ? UNKNOWN_INT : { s: [unknownAt(`${e.name}[]`, at)] });
      }
      return vars.get(e.name) ?? { s: [unknownAt(e.name, at)] };
    }
    case 'un': {
      const x = asInt(evaluate(e.e, vars, arrays, at));
      if (x === null) return UNKNOWN_INT;
      return { n: e.op === '-' ? -x | 0 : e.op === '+' ? x : e.op === '!' ? (x === 0 ? 1 : 0) : ~x };
    }
    case 'bin':
      return binary(e.op, evaluate(e.l, vars, arrays, at), evaluate(e.r, vars, arrays, at));
  }
}

function binary(op: string, lv: Val, rv: Val): Val {
  // Strings compare as strings (later TTL versions allow it); anything unknown is unknown.
  if (('s' in lv || 's' in rv) && (op === '=' || op === '<>')) {
    const a = knownText(asValue(lv));
    const b = knownText(asValue(rv));
    if (a === null || b === null) return UNKNOWN_INT;
    return { n: (a === b) === (op === '=') ? 1 : 0 };
  }
  const a = asInt(lv);
  const b = asInt(rv);
  if (a === null || b === null) {
    // 0 && x and 1 || x are known whatever x is.
    if (op === '&&' && (a === 0 || b === 0)) return { n: 0 };
    if (op === '||' && ((a !== null && a !== 0) || (b !== null && b !== 0))) return { n: 1 };
    return UNKNOWN_INT;
  }
  const bool = (x: boolean) => ({ n: x ? 1 : 0 });
  switch (op) {
    case '+':
      return { n: (a + b) | 0 };
    case '-':
      return { n: (a - b) | 0 };
    case '*':
      return { n: Math.imul(a, b) };
    case '/':
      return b === 0 ? UNKNOWN_INT : { n: (a / b) | 0 };
    case '%':
      return b === 0 ? UNKNOWN_INT : { n: (a % b) | 0 };
    case '<<':
      return { n: a << b };
    case '>>':
      return { n: a >> b };
    case '>>>':
      return { n: (a >>> b) | 0 };
    case '&':
    case 'and':
      return { n: a & b };
    case '^':
    case 'xor':
      return { n: a ^ b };
    case '|':
    case 'or':
      return { n: a | b };
    case '<':
      return bool(a < b);
    case '>':
      return bool(a > b);
    case '<=':
      return bool(a <= b);
    case '>=':
      return bool(a >= b);
    case '=':
      return bool(a === b);
    case '<>':
      return bool(a !== b);
    case '&&':
      return bool(a !== 0 && b !== 0);
    case '||':
      return bool(a !== 0 || b !== 0);
  }
  return UNKNOWN_INT;
}

/** sprintf/sprintf2 with TTL's conversions (%s %d %i %x %X %c %%, flags, width, precision). */
export function sprintf(format: Value, args: Val[], at: SourceRef): Value {
  const fmt = knownText(format);
  if (fmt === null) return [unknownAt('sprintf', at)];
  const out: Value = [];
  let k = 0;
  let last = 0;
  for (const m of fmt.matchAll(/%([-+ 0#]*)(\d+)?(?:\.(\d+))?([sdixXcob%])/g)) {
    out.push(fmt.slice(last, m.index));
    last = m.index! + m[0].length;
    const conv = m[4]!;
    if (conv === '%') {
      out.push('%');
      continue;
    }
    const arg = args[k++];
    if (!arg) return [unknownAt('sprintf', at)];
    if (conv === 's') {
      const v = asValue(arg);
      const t = knownText(v);
      out.push(...(t === null ? v : [pad(m[3] ? t.slice(0, Number(m[3])) : t, m[1]!, m[2])]));
      continue;
    }
    const n = asInt(arg);
    if (n === null) {
      out.push(unknownAt('sprintf', at));
      continue;
    }
    const text =
      conv === 'x'
        ? (n >>> 0).toString(16)
        : conv === 'X'
          ? (n >>> 0).toString(16).toUpperCase()
          : conv === 'o'
            ? (n >>> 0).toString(8)
            : conv === 'b'
              ? (n >>> 0).toString(2)
              : conv === 'c'
                ? String.fromCharCode(n & 0xff)
                : String(n);
    out.push(pad(text, m[1]!, m[2]));
  }
  out.push(fmt.slice(last));
  return joinValues(out);
}

function pad(s: string, flags: string, width: string | undefined): string {
  const w = width ? Number(width) : 0;
  if (s.length >= w) return s;
  if (flags.includes('-')) return s + ' '.repeat(w - s.length);
  return (flags.includes('0') ? '0' : ' ').repeat(w - s.length) + s;
}
