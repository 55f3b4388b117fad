import type { Stmt } from './ttlProgram.js';
import { exec, fork, MAX_INCLUDE_DEPTH, programOf, seenBefore, type RunContext, type RunState } from './ttlRun.js';
import { asInt, asValue, str, UNKNOWN_INT, type Val } from './ttlValues.js';
import { joinValues, knownText, type SourceRef, type Value } from './types.js';

// The statements of a macro that matter to an importer: control flow (if/elseif/else/endif,
// goto, call/return, for/next, while/endwhile, do/loop, until/enduntil, break, continue, include,
// end, exit), string building (strconcat, int2str, makepath, getenv, expandenv…), what a person
// types or a file holds (inputbox, passwordbox, getpassword, fileopen/filereadln), the aws CLI an
// `exec` runs, and a password typed after a password prompt. Any other command leaves `result`
// unknown, so a test of it is followed both ways.

type Frame = RunState['frames'][number];
const PASSWORD_PROMPT = /pass(?:word|phrase)?|パスワード/i;

const varName = (stmt: Stmt, i: number): string | null => (stmt.args[i]?.k === 'var' ? (stmt.args[i] as { name: string }).name : null);

/** One statement as a command sees it: where it runs, its arguments, and the moves every command makes. */
interface Cmd {
  ctx: RunContext;
  s: RunState;
  f: Frame;
  stmt: Stmt;
  at: SourceRef;
  ev: (i: number) => Val;
  /** Sets the variable named by argument `i` (a literal there sets nothing). */
  set: (i: number, v: Val) => void;
  /** A value nobody can know here (what a person types, what a file holds). */
  unknown: (from: string, extra?: object) => Val;
  /** On to the next line. */
  next: () => void;
}

/** A command group's answer for a statement that is not one of its commands. */
const NOT_MINE = Symbol('not mine');
type Outcome = 'end' | void | typeof NOT_MINE;

export function ttlCommand(ctx: RunContext, s: RunState, f: Frame, stmt: Stmt, at: SourceRef, ev: (i: number) => Val): 'end' | void {
  const c: Cmd = {
    ctx,
    s,
    f,
    stmt,
    at,
    ev,
    set: (i, v) => {
      const n = varName(stmt, i);
      if (n) s.vars.set(n, v);
    },
    unknown: (from, extra = {}) => ({ s: [{ from, at, ...extra }] }),
    next: () => void f.pc++,
  };
  for (const group of [controlFlow, loops, includes, strings, inputs]) {
    const r = group(c);
    if (r !== NOT_MINE) return r;
  }
  s.vars.set('result', UNKNOWN_INT);
  return c.next();
}

/** end, exit, goto/call/return and if/elseif/else/endif. */
function controlFlow(c: Cmd): Outcome {
  const { ctx, s, f, stmt, at, ev, next } = c;
  const p = f.prog;
  switch (stmt.name) {
    case 'end':
      return 'end';
    case 'exit':
      // Back to the line after the include (its pc moved on when the include began), or the end.
      s.frames.pop();
      return s.frames.length ? undefined : 'end';
    case 'goto':
    case 'call': {
      const label = varName(stmt, 0);
      const target = label !== null ? p.labels.get(label) : undefined;
      if (target === undefined) return 'end';
      if (stmt.name === 'call') s.calls.push({ depth: s.frames.length, pc: f.pc + 1 });
      f.pc = target;
      return repeated(ctx, s);
    }
    case 'return': {
      const back = s.calls.pop();
      if (!back) return 'end';
      s.frames.length = back.depth;
      s.frames[back.depth - 1]!.pc = back.pc;
      return;
    }
    case 'if':
      if (stmt.guarded) {
        // `if COND STATEMENT`: the statement runs in the if line's place.
        const c = asInt(ev(0));
        if (c === null) fork(ctx, s, (o) => void o.frames[o.frames.length - 1]!.pc++);
        if (c === 0) return next();
        return exec(ctx, s, f, stmt.guarded, at);
      }
      return branch(ctx, s, f, asInt(ev(0)));
    case 'elseif':
      if (f.evalClause) {
        f.evalClause = false;
        return branch(ctx, s, f, asInt(ev(0)));
      }
      f.pc = (p.endOf.get(f.pc) ?? f.pc) + 1;
      return;
    case 'else':
      // Reached by finishing the branch before: on to the line after endif.
      f.pc = (p.endOf.get(f.pc) ?? f.pc) + 1;
      return;
    case 'endif':
      return next();
  }
  return NOT_MINE;
}

/** for/next, while/until, do/loop, break/continue. */
function loops(c: Cmd): Outcome {
  const { ctx, s, f, stmt, ev, next } = c;
  const p = f.prog;
  switch (stmt.name) {
    case 'for': {
      const v = varName(stmt, 0);
      const a = asInt(ev(1));
      const b = asInt(ev(2));
      if (v) s.vars.set(v, { n: a });
      s.loops.set(`${s.frames.length}:${f.pc}`, { end: b, step: a !== null && b !== null && a > b ? -1 : 1 });
      return next();
    }
    case 'next': {
      const open = p.partner.get(f.pc);
      const loop = open !== undefined ? s.loops.get(`${s.frames.length}:${open}`) : undefined;
      const v = open !== undefined ? varName(p.stmts[open]!, 0) : null;
      const cur = v ? asInt(s.vars.get(v) ?? UNKNOWN_INT) : null;
      if (!loop || !v || cur === null || loop.end === null) return next();
      const n = cur + loop.step;
      s.vars.set(v, { n });
      if (loop.step > 0 ? n <= loop.end : n >= loop.end) f.pc = open! + 1;
      else next();
      return;
    }
    case 'while':
    case 'until':
      return loopTest(ctx, s, f, asInt(ev(0)), stmt.name === 'until');
    case 'endwhile':
    case 'enduntil':
      f.pc = p.partner.get(f.pc) ?? f.pc + 1;
      return repeated(ctx, s);
    case 'do': {
      const kw = varName(stmt, 0);
      if (kw === 'while' || kw === 'until') return loopTest(ctx, s, f, asInt(ev(1)), kw === 'until');
      return next();
    }
    case 'loop': {
      const kw = varName(stmt, 0);
      const open = p.partner.get(f.pc);
      if (open === undefined) return next();
      if (kw !== 'while' && kw !== 'until') {
        f.pc = open;
        return repeated(ctx, s);
      }
      const c = asInt(ev(1));
      const again = c === null ? null : (c !== 0) !== (kw === 'until');
      if (again === null) fork(ctx, s, (o) => void o.frames[o.frames.length - 1]!.pc++);
      if (!again) return next();
      f.pc = open + 1;
      return repeated(ctx, s);
    }
    case 'break':
    case 'continue': {
      const loop = enclosingLoop(f);
      if (loop === undefined) return next();
      f.pc = stmt.name === 'break' ? p.partner.get(loop)! + 1 : p.partner.get(loop)!;
      return;
    }
  }
  return NOT_MINE;
}

/** include and setdir: where further macro text comes from. */
function includes(c: Cmd): Outcome {
  const { ctx, s, f, at, stmt, ev, next } = c;
  switch (stmt.name) {
    case 'include': {
      const name = knownText(asValue(ev(0)));
      const inc = name !== null ? ctx.host.include(name, s.dir) : null;
      if (!inc) ctx.notes.push({ code: 'include-missing', at, detail: name ?? '?' });
      else if (s.frames.length > MAX_INCLUDE_DEPTH || s.frames.some((x) => x.prog.file === inc.file))
        ctx.notes.push({ code: 'include-too-deep', at, detail: inc.file });
      else {
        f.pc++;
        s.frames.push({ prog: programOf(ctx, inc.file, inc.text), pc: 0 });
        return;
      }
      return next();
    }
    case 'setdir': {
      const d = knownText(asValue(ev(0)));
      if (d !== null) s.dir = d;
      return next();
    }
  }
  return NOT_MINE;
}

/** String building: strconcat, int2str, getenv, expandenv, makepath, strcopy… */
function strings(c: Cmd): Outcome {
  const { s, stmt, at, ev, set, unknown, next } = c;
  switch (stmt.name) {
    case 'strconcat': {
      const n = varName(stmt, 0);
      if (n) s.vars.set(n, { s: joinValues(asValue(s.vars.get(n) ?? str('')), asValue(ev(1))) });
      return next();
    }
    case 'int2str':
      set(0, { s: asValue(ev(1)) });
      return next();
    case 'str2int': {
      const n = asInt(ev(1));
      set(0, { n });
      s.vars.set('result', n === null ? UNKNOWN_INT : { n: 1 });
      return next();
    }
    case 'getenv': {
      const name = knownText(asValue(ev(0)));
      set(1, unknown(`getenv ${name ?? '?'}`, name ? { env: name } : {}));
      return next();
    }
    case 'expandenv': {
      const src = asValue(stmt.args.length > 1 ? ev(1) : ev(0));
      set(0, { s: expandEnvParts(src, at) });
      return next();
    }
    case 'makepath': {
      const dir = asValue(ev(1));
      const last = dir[dir.length - 1];
      const sep = typeof last === 'string' && /[\\/]$/.test(last) ? '' : '\\';
      set(0, { s: joinValues(dir, [sep], asValue(ev(2))) });
      return next();
    }
    case 'strcopy': {
      const src = knownText(asValue(ev(0)));
      const pos = asInt(ev(1));
      const len = asInt(ev(2));
      set(3, src !== null && pos !== null && len !== null ? str(src.substr(pos - 1, len)) : unknown('strcopy'));
      return next();
    }
    case 'strtrim': {
      const v = knownText(asValue(ev(0)));
      const chars = knownText(asValue(ev(1)));
      if (v !== null && chars !== null) set(0, str(trimChars(v, chars)));
      return next();
    }
    case 'strlen': {
      const v = knownText(asValue(ev(0)));
      s.vars.set('result', v === null ? UNKNOWN_INT : { n: v.length });
      return next();
    }
    case 'strcompare': {
      const a = knownText(asValue(ev(0)));
      const b = knownText(asValue(ev(1)));
      s.vars.set('result', a === null || b === null ? UNKNOWN_INT : { n: a < b ? -1 : a > b ? 1 : 0 });
      return next();
    }
    case 'strdim':
    case 'intdim': {
      const n = varName(stmt, 0);
      if (n) s.arrays.set(n, new Map());
      return next();
    }
  }
  return NOT_MINE;
}

/** What a person types or a file holds, the aws CLI an exec runs, a password typed after its prompt. */
function inputs(c: Cmd): Outcome {
  const { ctx, s, stmt, at, ev, set, unknown, next } = c;
  switch (stmt.name) {
    case 'inputbox':
    case 'filenamebox':
    case 'dirnamebox':
      s.vars.set('inputstr', unknown(stmt.name));
      s.vars.set('result', UNKNOWN_INT);
      return next();
    case 'passwordbox':
      s.vars.set('inputstr', unknown('passwordbox', { secret: true }));
      s.vars.set('result', UNKNOWN_INT);
      return next();
    case 'getpassword':
    case 'getpassword2':
      ctx.notes.push({ code: 'password-file', at });
      set(2, unknown(stmt.name, { secret: true }));
      s.vars.set('result', UNKNOWN_INT);
      return next();
    case 'fileopen': {
      const h = s.nextHandle++;
      s.handles.set(h, s.lookup);
      set(0, { n: h });
      return next();
    }
    case 'filereadln':
    case 'fileread': {
      const h = asInt(ev(0));
      const lookup = h !== null ? s.handles.get(h) : undefined;
      set(stmt.name === 'fileread' ? 2 : 1, unknown(stmt.name, lookup ? { lookup } : {}));
      s.vars.set('result', UNKNOWN_INT);
      return next();
    }
    case 'exec': {
      const lookup = ctx.host.execLookup(asValue(ev(0)), at);
      if (lookup) s.lookup = lookup;
      s.vars.set('result', UNKNOWN_INT);
      return next();
    }
    case 'wait':
    case 'waitln':
    case 'waitregex':
    case 'waitrecv':
      if (stmt.args.some((_, i) => PASSWORD_PROMPT.test(knownText(asValue(ev(i))) ?? ''))) s.passwordPrompt = true;
      s.vars.set('result', UNKNOWN_INT);
      return next();
    case 'send':
    case 'sendln':
      if (s.passwordPrompt) {
        const typed = stmt.args.map((_, i) => asValue(ev(i)));
        // A literal (not a value a person typed into a password box) is a password in the file.
        if (typed.some((v) => v.some((part) => typeof part === 'string' && part.trim() !== '')) && s.lastConnect) s.lastConnect.passwordTyped = true;
        s.passwordPrompt = false;
      }
      return next();
  }
  return NOT_MINE;
}

/** After a jump back: a path that comes round to a state already followed ends here (a retry loop on an unknown result). */
function repeated(ctx: RunContext, s: RunState): 'end' | void {
  return seenBefore(ctx, s) ? 'end' : undefined;
}

/** An if/elseif clause: true → its body, false → the next clause, unknown → both (the other way queued). */
function branch(ctx: RunContext, s: RunState, f: Frame, c: number | null): void {
  const clause = f.pc;
  if (c === null) fork(ctx, s, (o) => toNextClause(o.frames[o.frames.length - 1]!, clause));
  if (c === 0) toNextClause(f, clause);
  else f.pc = clause + 1;
}

/** On from a clause whose condition is false: an elseif is evaluated when the path reaches it, an else runs, endif ends. */
function toNextClause(f: Frame, clause: number): void {
  const p = f.prog;
  const nextClause = p.partner.get(clause);
  if (nextClause === undefined) f.pc = (p.endOf.get(clause) ?? clause) + 1;
  else if (p.stmts[nextClause]!.name === 'elseif') {
    f.pc = nextClause;
    f.evalClause = true;
  } else f.pc = nextClause + 1;
}

function loopTest(ctx: RunContext, s: RunState, f: Frame, c: number | null, until: boolean): void {
  const end = f.prog.partner.get(f.pc);
  const stay = c === null ? null : (c !== 0) !== until;
  if (stay === null && end !== undefined) fork(ctx, s, (o) => void (o.frames[o.frames.length - 1]!.pc = end + 1));
  f.pc = stay === false && end !== undefined ? end + 1 : f.pc + 1;
}

function enclosingLoop(f: Frame): number | undefined {
  let best: number | undefined;
  for (const [open, close] of f.prog.partner) {
    const st = f.prog.stmts[open]!;
    if (!['for', 'while', 'do', 'until'].includes(st.name)) continue;
    if (open < f.pc && close > f.pc && (best === undefined || open > best)) best = open;
  }
  return best;
}

function trimChars(v: string, chars: string): string {
  let a = 0;
  let b = v.length;
  while (a < b && chars.includes(v[a]!)) a++;
  while (b > a && chars.includes(v[b - 1]!)) b--;
  return v.slice(a, b);
}

/** %NAME% in a string → unknown parts that remember the variable (USERPROFILE…). */
function expandEnvParts(v: Value, at: SourceRef): Value {
  const out: Value = [];
  for (const part of v) {
    if (typeof part !== 'string') {
      out.push(part);
      continue;
    }
    let last = 0;
    for (const m of part.matchAll(/%([A-Za-z_][A-Za-z0-9_()]*)%/g)) {
      out.push(part.slice(last, m.index));
      out.push({ from: `%${m[1]}%`, at, env: m[1]!.toUpperCase() });
      last = m.index! + m[0].length;
    }
    out.push(part.slice(last));
  }
  return joinValues(out);
}
