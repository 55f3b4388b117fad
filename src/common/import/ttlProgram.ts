import { lexTtl, type Tok } from './ttlLexer.js';

// A macro file as statements, with its blocks matched (if/elseif/else/endif, for/next,
// while/endwhile, do/loop, until/enduntil) and expressions parsed with TTL's precedence (the
// manual's "Expressions and operators": unary, * / %, + -, shifts, and &, xor ^, or |, relational,
// equality, &&, ||). Every expression is integer-typed in TTL except a lone string constant or
// string variable.

export type Expr =
  | { k: 'str'; v: string }
  | { k: 'num'; v: number }
  | { k: 'var'; name: string; index?: Expr }
  | { k: 'un'; op: string; e: Expr }
  | { k: 'bin'; op: string; l: Expr; r: Expr };

export interface Stmt {
  line: number;
  kind: 'label' | 'assign' | 'cmd';
  /** Command name, label name, or the assigned variable (lower case). */
  name: string;
  /** assign: the array index, if any. */
  index?: Expr;
  /** assign: the value; cmd: the arguments, each an expression (a keyword such as `then` is a var). */
  args: Expr[];
  /** if without `then`: the statement it guards. */
  guarded?: Stmt;
}

export interface Program {
  file: string;
  stmts: Stmt[];
  labels: Map<string, number>;
  /** Block partners by statement index: if→next clause, clause→next clause, for↔next, while↔endwhile… */
  partner: Map<number, number>;
  /** if/elseif/else → its endif. */
  endOf: Map<number, number>;
  errors: Array<{ line: number; text: string }>;
}

const BINARY: string[][] = [
  ['||'],
  ['&&'],
  ['=', '==', '<>', '!='],
  ['<', '>', '<=', '>='],
  ['|', 'or'],
  ['^', 'xor'],
  ['&', 'and'],
  ['>>', '<<', '>>>'],
  ['+', '-'],
  ['*', '/', '%'],
];

class Parser {
  i = 0;
  constructor(private readonly toks: Tok[]) {}
  get done(): boolean {
    return this.i >= this.toks.length;
  }
  peek(): Tok | undefined {
    return this.toks[this.i];
  }
  rest(): Tok[] {
    return this.toks.slice(this.i);
  }
  isOp(level: number): string | null {
    const t = this.peek();
    if (!t) return null;
    const v = t.t === 'op' || (t.t === 'id' && ['and', 'or', 'xor'].includes(t.v)) ? t.v : null;
    return v && BINARY[level]!.includes(v) ? v : null;
  }
  expr(level = 0): Expr {
    if (level >= BINARY.length) return this.unary();
    let l = this.expr(level + 1);
    for (let op = this.isOp(level); op; op = this.isOp(level)) {
      this.i++;
      l = { k: 'bin', op: op === '==' ? '=' : op === '!=' ? '<>' : op, l, r: this.expr(level + 1) };
    }
    return l;
  }
  unary(): Expr {
    const t = this.peek();
    if (!t) throw new Error('expression expected');
    if ((t.t === 'op' && ['!', '~', '-', '+'].includes(t.v)) || (t.t === 'id' && t.v === 'not')) {
      this.i++;
      return { k: 'un', op: t.v === 'not' ? '~' : t.v, e: this.unary() };
    }
    this.i++;
    if (t.t === 'str') return { k: 'str', v: t.v };
    if (t.t === 'num') return { k: 'num', v: t.v };
    if (t.t === 'op' && t.v === '(') {
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (t.t === 'id') {
      if (this.peek()?.t === 'op' && this.peek()!.v === '[') {
        this.i++;
        const index = this.expr();
        this.expect(']');
        return { k: 'var', name: t.v, index };
      }
      return { k: 'var', name: t.v };
    }
    throw new Error(`unexpected ${t.v}`);
  }
  expect(op: string): void {
    const t = this.peek();
    if (!t || t.t !== 'op' || t.v !== op) throw new Error(`${op} expected`);
    this.i++;
  }
  args(): Expr[] {
    const out: Expr[] = [];
    while (!this.done) out.push(this.expr());
    return out;
  }
}

function statement(line: number, toks: Tok[]): Stmt {
  const first = toks[0]!;
  if (first.t === 'label') return { line, kind: 'label', name: first.v, args: [] };
  if (first.t !== 'id') throw new Error('a command or a variable expected');
  const p = new Parser(toks);
  p.i = 1;
  // NAME = value, NAME[i] = value
  let index: Expr | undefined;
  if (p.peek()?.t === 'op' && p.peek()!.v === '[') {
    p.i++;
    index = p.expr();
    p.expect(']');
  }
  if (p.peek()?.t === 'op' && p.peek()!.v === '=') {
    p.i++;
    return { line, kind: 'assign', name: first.v, ...(index ? { index } : {}), args: [p.expr()] };
  }
  if (index) throw new Error('= expected');
  if (first.v === 'if' || first.v === 'elseif') {
    const cond = p.expr();
    const after = p.rest();
    if (after.length === 1 && after[0]!.t === 'id' && after[0]!.v === 'then')
      return { line, kind: 'cmd', name: first.v, args: [cond, { k: 'var', name: 'then' }] };
    if (first.v === 'if' && after.length) return { line, kind: 'cmd', name: 'if', args: [cond], guarded: statement(line, after) };
    throw new Error('then expected');
  }
  return { line, kind: 'cmd', name: first.v, args: p.args() };
}

const OPENERS: Record<string, string> = { for: 'next', while: 'endwhile', do: 'loop', until: 'enduntil' };
const CLOSERS = new Set(Object.values(OPENERS));

/** Parses a macro; lines it cannot read are listed in `errors` and left out. */
export function parseProgram(file: string, text: string): Program {
  const prog: Program = { file, stmts: [], labels: new Map(), partner: new Map(), endOf: new Map(), errors: [] };
  for (const l of lexTtl(text)) {
    if (l.error !== undefined) {
      prog.errors.push({ line: l.line, text: l.error });
      continue;
    }
    try {
      const s = statement(l.line, l.toks);
      if (s.kind === 'label') prog.labels.set(s.name, prog.stmts.length);
      prog.stmts.push(s);
    } catch (e) {
      prog.errors.push({ line: l.line, text: (e as Error).message });
    }
  }
  matchBlocks(prog);
  return prog;
}

function matchBlocks(prog: Program): void {
  const stack: Array<{ kind: string; at: number; clauses: number[] }> = [];
  prog.stmts.forEach((s, i) => {
    if (s.kind !== 'cmd') return;
    const isThen = (s.name === 'if' || s.name === 'elseif') && !s.guarded;
    if (s.name === 'if' && isThen) stack.push({ kind: 'if', at: i, clauses: [i] });
    else if (s.name === 'elseif' || s.name === 'else') {
      const top = stack[stack.length - 1];
      if (top?.kind !== 'if') return void prog.errors.push({ line: s.line, text: `${s.name} without if` });
      prog.partner.set(top.clauses[top.clauses.length - 1]!, i);
      top.clauses.push(i);
    } else if (s.name === 'endif') {
      const top = stack.pop();
      if (top?.kind !== 'if') return void prog.errors.push({ line: s.line, text: 'endif without if' });
      prog.partner.set(top.clauses[top.clauses.length - 1]!, i);
      for (const c of top.clauses) prog.endOf.set(c, i);
    } else if (OPENERS[s.name]) stack.push({ kind: s.name, at: i, clauses: [] });
    else if (CLOSERS.has(s.name)) {
      const top = stack.pop();
      if (!top || OPENERS[top.kind] !== s.name) return void prog.errors.push({ line: s.line, text: `${s.name} without its opening` });
      prog.partner.set(top.at, i);
      prog.partner.set(i, top.at);
    }
  });
  for (const open of stack) prog.errors.push({ line: prog.stmts[open.at]!.line, text: `${open.kind} is never closed` });
}
