import { parseCommandLine, type ConnectSpec } from './cmdline.js';
import { parseProgram, type Program, type Stmt } from './ttlProgram.js';
import { asInt, asValue, evaluate, sprintf, str, UNKNOWN_INT, type Val } from './ttlValues.js';
import type { AwsLookup, Note, SourceRef, Value } from './types.js';

// Reads a Tera Term macro without running it: every path the macro could take is followed (a
// condition the reader cannot know — a dialog's answer, a file's contents — is taken both ways),
// so a menu macro with a branch per server yields every server. Paths that reach the same point
// in the same state are followed once, and a budget of paths and steps bounds the rest.

/** Tera Term's include nesting limit (the manual's `include`). */
export const MAX_INCLUDE_DEPTH = 9;
const MAX_PATHS = 256;
const MAX_STEPS = 50_000;

export interface FoundConnect {
  at: SourceRef;
  spec: ConnectSpec;
  /** A password the macro types after a password prompt (sendln 'secret'): found, never kept. */
  passwordTyped: boolean;
}

export interface TtlHost {
  /** The macro an `include` names, from the current directory (`setdir`, else the first macro's). */
  include(name: string, dir: string): { file: string; text: string } | null;
  /** The aws CLI call in an `exec` command line, if it is one. */
  execLookup(cmd: Value, at: SourceRef): AwsLookup | null;
}

interface Frame {
  prog: Program;
  pc: number;
  /** The statement at pc is an elseif reached because the clause before was false: evaluate it. */
  evalClause?: boolean;
}

export interface RunState {
  frames: Frame[];
  calls: Array<{ depth: number; pc: number }>;
  vars: Map<string, Val>;
  arrays: Map<string, Map<number, Val>>;
  loops: Map<string, { end: number | null; step: number }>;
  /** The last aws look-up an `exec` ran: a file read afterwards holds its answer. */
  lookup: AwsLookup | undefined;
  handles: Map<number, AwsLookup | undefined>;
  nextHandle: number;
  dir: string;
  passwordPrompt: boolean;
  lastConnect: FoundConnect | undefined;
}

/** Runs the statements exec() leaves to the command table (ttlCommands.ts, given by runMacro). */
type CommandRunner = (ctx: RunContext, s: RunState, f: Frame, stmt: Stmt, at: SourceRef, ev: (i: number) => Val) => 'end' | void;

export interface RunContext {
  host: TtlHost;
  command: CommandRunner;
  programs: Map<string, Program>;
  found: FoundConnect[];
  notes: Note[];
  queue: RunState[];
  seen: Set<string>;
  steps: number;
}

function clone(s: RunState): RunState {
  return {
    ...s,
    frames: s.frames.map((f) => ({ ...f })),
    calls: [...s.calls],
    vars: new Map(s.vars),
    arrays: new Map([...s.arrays].map(([k, v]) => [k, new Map(v)])),
    loops: new Map(s.loops),
    handles: new Map(s.handles),
  };
}

/** Follows one macro file (with its params: param2… as ttpmacro.exe passes them); see ttlMacro.ts. */
export function followMacro(
  file: string,
  text: string,
  dir: string,
  host: TtlHost,
  params: Value[] | undefined,
  command: CommandRunner,
): { connects: FoundConnect[]; notes: Note[] } {
  const ctx: RunContext = { host, command, programs: new Map(), found: [], notes: [], queue: [], seen: new Set(), steps: 0 };
  const prog = programOf(ctx, file, text);
  const vars = new Map<string, Val>([
    ['result', { n: 0 }],
    ['inputstr', str('')],
    ['matchstr', str('')],
    ['param1', str(file)],
    // A macro read on its own (params undefined): its parameters are known only when it runs.
    ['paramcnt', params ? { n: params.length + 1 } : UNKNOWN_INT],
  ]);
  const param = (i: number): Val => {
    if (!params) return { s: [{ from: `param${i}`, at: { file, line: 0 } }] };
    return params[i - 2] ? { s: params[i - 2]! } : str('');
  };
  for (let i = 2; i <= 9; i++) vars.set(`param${i}`, param(i));
  ctx.queue.push({
    frames: [{ prog, pc: 0 }],
    calls: [],
    vars,
    arrays: new Map(),
    loops: new Map(),
    lookup: undefined,
    handles: new Map(),
    nextHandle: 1,
    dir,
    passwordPrompt: false,
    lastConnect: undefined,
  });
  let paths = 0;
  while (ctx.queue.length) {
    if (++paths > MAX_PATHS || ctx.steps > MAX_STEPS) {
      ctx.notes.push({ code: 'budget', at: { file, line: 1 } });
      break;
    }
    runPath(ctx, ctx.queue.shift()!);
  }
  return { connects: ctx.found, notes: ctx.notes };
}

export function programOf(ctx: RunContext, file: string, text: string): Program {
  let p = ctx.programs.get(file);
  if (!p) {
    p = parseProgram(file, text);
    for (const e of p.errors) ctx.notes.push({ code: 'syntax', at: { file, line: e.line }, detail: e.text });
    ctx.programs.set(file, p);
  }
  return p;
}

/** True when a path was already at this point in this state (and remembers it otherwise). */
export function seenBefore(ctx: RunContext, s: RunState): boolean {
  const key = JSON.stringify([
    s.frames.map((x) => [x.prog.file, x.pc, !!x.evalClause]),
    s.calls,
    [...s.vars],
    [...s.arrays].map(([k, v]) => [k, [...v]]),
    s.lookup?.at,
  ]);
  if (ctx.seen.has(key)) return true;
  ctx.seen.add(key);
  return false;
}

/** Queues the other way of a condition the reader cannot know, unless a path was already there in that state. */
export function fork(ctx: RunContext, s: RunState, other: (c: RunState) => void): void {
  const c = clone(s);
  other(c);
  if (c.frames.length && !seenBefore(ctx, c)) ctx.queue.push(c);
}

function runPath(ctx: RunContext, s: RunState): void {
  for (;;) {
    const f = s.frames[s.frames.length - 1];
    if (!f) return;
    if (f.pc >= f.prog.stmts.length) {
      // The end of an included file returns to the line after its include.
      s.frames.pop();
      continue;
    }
    if (++ctx.steps > MAX_STEPS) return;
    const stmt = f.prog.stmts[f.pc]!;
    const at = { file: f.prog.file, line: stmt.line };
    if (exec(ctx, s, f, stmt, at) === 'end') return;
  }
}

/** Runs one statement; 'end' when the path is over. */
export function exec(ctx: RunContext, s: RunState, f: Frame, stmt: Stmt, at: SourceRef): 'end' | void {
  const ev = (i: number): Val => (stmt.args[i] ? evaluate(stmt.args[i]!, s.vars, s.arrays, at) : str(''));
  if (stmt.kind === 'label') {
    f.pc++;
    return;
  }
  if (stmt.kind === 'assign') {
    const v = ev(0);
    if (stmt.index) {
      const i = asInt(evaluate(stmt.index, s.vars, s.arrays, at));
      const arr = s.arrays.get(stmt.name) ?? new Map<number, Val>();
      if (i !== null) arr.set(i, v);
      s.arrays.set(stmt.name, arr);
    } else s.vars.set(stmt.name, v);
    f.pc++;
    return;
  }
  switch (stmt.name) {
    case 'connect': {
      const spec = parseCommandLine(asValue(ev(0)));
      const c: FoundConnect = { at, spec, passwordTyped: false };
      ctx.found.push(c);
      s.lastConnect = c;
      s.vars.set('result', UNKNOWN_INT);
      f.pc++;
      return;
    }
    case 'sprintf':
    case 'sprintf2': {
      const target = stmt.name === 'sprintf2' && stmt.args[0]?.k === 'var' ? stmt.args[0].name : 'inputstr';
      const first = stmt.name === 'sprintf2' ? 1 : 0;
      s.vars.set(target, {
        s: sprintf(
          asValue(ev(first)),
          stmt.args.slice(first + 1).map((_, i) => ev(first + 1 + i)),
          at,
        ),
      });
      f.pc++;
      return;
    }
  }
  return ctx.command(ctx, s, f, stmt, at, ev);
}
