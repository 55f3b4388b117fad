import { checkTtl, type Statement } from './checker.js';
import type { Token } from './lexer.js';

// Runs a (checked) TTL macro for the commands TagSSH emits, with the outside world supplied by
// the test: what exec does, what the user picks in a listbox or answers in a yesnobox, and the
// files exec leaves behind. It records message boxes and the final `connect` line. String
// values are capped at 511 bytes as ttpmacro does, so a silent truncation would show up.

export interface World {
  env?: Record<string, string>;
  /** Runs a command line; returns its exit code. May write files into `files`. */
  exec(commandLine: string, files: Map<string, string>): number;
  listbox?(items: string[]): number;
  yesnobox?(message: string): boolean;
}

export interface RunResult {
  connect?: string;
  messages: string[];
  execs: string[];
  ended: 'end' | 'eof';
  /** Variables when the macro stopped (lower-case names). */
  vars: Map<string, string | number | string[]>;
}

type Value = string | number | string[];

function cap(s: string): string {
  let b = Buffer.from(s, 'utf8');
  if (b.length <= 511) return s;
  b = b.subarray(0, 511);
  return b.toString('utf8');
}

export function runTtl(source: string, world: World): RunResult {
  const { statements } = checkTtl(source);
  const vars = new Map<string, Value>([['result', 0]]);
  const files = new Map<string, string>();
  const handles = new Map<number, { lines: string[]; pos: number }>();
  const out: RunResult = { messages: [], execs: [], ended: 'eof', vars };

  const get = (name: string): Value => {
    const v = vars.get(name);
    if (v === undefined) throw new Error(`variable ${name} not initialised`);
    return v;
  };
  const str = (tokens: Token[]): string => {
    const v = evaluate(tokens);
    if (typeof v !== 'string') throw new Error('string expected');
    return v;
  };
  const int = (tokens: Token[]): number => {
    const v = evaluate(tokens);
    if (typeof v !== 'number') throw new Error('integer expected');
    return v;
  };
  const varName = (tokens: Token[]): string => {
    const t = tokens[0];
    if (!t || t.kind !== 'ident') throw new Error('variable expected');
    return t.lower;
  };

  function evaluate(tokens: Token[]): Value {
    let p = 0;
    const peek = () => tokens[p];
    const factor = (): Value => {
      const t = tokens[p++];
      if (!t) throw new Error('expression ended early');
      if (t.kind === 'number') return t.value;
      if (t.kind === 'string') return t.value;
      if (t.kind === 'op' && t.text === '-') return -(factor() as number);
      if (t.kind === 'op' && t.text === '(') {
        const v = compare();
        p++;
        return v;
      }
      if (t.kind === 'ident') {
        const v = get(t.lower);
        const nx = peek();
        if (nx?.kind === 'op' && nx.text === '[') {
          p++;
          const idxTokens: Token[] = [];
          let depth = 1;
          while (p < tokens.length) {
            const x = tokens[p++]!;
            if (x.kind === 'op' && x.text === '[') depth++;
            if (x.kind === 'op' && x.text === ']' && --depth === 0) break;
            idxTokens.push(x);
          }
          return (v as string[])[int(idxTokens)]!;
        }
        return v;
      }
      throw new Error(`unexpected token ${JSON.stringify(t)}`);
    };
    const additive = (): Value => {
      let v = factor();
      while (peek()?.kind === 'op' && ['+', '-'].includes((peek() as { text: string }).text)) {
        const op = (tokens[p++] as { text: string }).text;
        const r = factor() as number;
        v = op === '+' ? (v as number) + r : (v as number) - r;
      }
      return v;
    };
    const compare = (): Value => {
      const l = additive();
      const t = peek();
      if (t?.kind !== 'op' || !['=', '==', '<>', '!=', '<', '>', '<=', '>='].includes(t.text)) return l;
      p++;
      const r = additive();
      switch (t.text) {
        case '=':
        case '==':
          return l === r ? 1 : 0;
        case '<>':
        case '!=':
          return l !== r ? 1 : 0;
        case '<':
          return (l as number) < (r as number) ? 1 : 0;
        case '>':
          return (l as number) > (r as number) ? 1 : 0;
        case '<=':
          return (l as number) <= (r as number) ? 1 : 0;
        default:
          return (l as number) >= (r as number) ? 1 : 0;
      }
    };
    const v = compare();
    if (p !== tokens.length) throw new Error('trailing tokens in expression');
    return v;
  }

  // Precompute if-block structure: for each if/elseif/else, where its block's next branch and endif are.
  const next = new Map<number, number>();
  const endOf = new Map<number, number>();
  const stack: number[][] = [];
  statements.forEach((s, i) => {
    if (s.word === 'if' && s.kind === 'command') stack.push([i]);
    else if ((s.word === 'elseif' || s.word === 'else') && s.kind === 'command') stack.at(-1)!.push(i);
    else if (s.word === 'endif' && s.kind === 'command') {
      const branches = stack.pop()!;
      branches.push(i);
      for (let k = 0; k < branches.length - 1; k++) {
        next.set(branches[k]!, branches[k + 1]!);
        endOf.set(branches[k]!, i);
      }
    }
  });

  const sprintf = (fmt: string, args: Value[]): string => {
    let k = 0;
    return fmt.replace(/%([sd%])/g, (_, c: string) => (c === '%' ? '%' : String(args[k++])));
  };

  let pc = 0;
  let steps = 0;
  while (pc < statements.length) {
    if (++steps > 100_000) throw new Error('runaway macro');
    const s: Statement = statements[pc]!;
    pc++;
    if (s.kind === 'empty' || s.kind === 'label') continue;
    if (s.kind === 'assign') {
      const v = evaluate(s.value!);
      if (s.index && s.index.length) (get(s.word!) as string[])[int(s.index)] = cap(String(v));
      else vars.set(s.word!, typeof v === 'string' ? cap(v) : v);
      continue;
    }
    const a = s.args;
    const setResult = (n: number) => vars.set('result', n);
    switch (s.word) {
      case 'if':
      case 'elseif': {
        if (s.word === 'elseif') {
          // reached the end of a taken branch
          pc = endOf.get(pc - 1)! + 1;
          break;
        }
        let at = pc - 1;
        for (;;) {
          const st = statements[at]!;
          if (st.word === 'endif') {
            pc = at + 1;
            break;
          }
          if (st.word === 'else' || int(st.args[0]!) !== 0) {
            pc = at + 1;
            break;
          }
          at = next.get(at)!;
        }
        break;
      }
      case 'else':
        pc = endOf.get(pc - 1)! + 1;
        break;
      case 'endif':
        break;
      case 'end':
        out.ended = 'end';
        return out;
      case 'getenv':
        vars.set(varName(a[1]!), world.env?.[str(a[0]!)] ?? '');
        break;
      case 'makepath':
        vars.set(varName(a[0]!), `${str(a[1]!)}\\${str(a[2]!)}`);
        break;
      case 'exec': {
        const cmd = str(a[0]!);
        out.execs.push(cmd);
        if (a[2] && int(a[2]) === 1) setResult(world.exec(cmd, files));
        else world.exec(cmd, files);
        break;
      }
      case 'fileopen': {
        const path = str(a[1]!);
        const content = files.get(path);
        if (content === undefined) vars.set(varName(a[0]!), -1);
        else {
          const h = handles.size + 1;
          handles.set(h, { lines: content.split(/\r?\n/), pos: 0 });
          vars.set(varName(a[0]!), h);
        }
        break;
      }
      case 'filereadln': {
        const h = handles.get(int(a[0]!))!;
        const line = h.lines[h.pos];
        if (line === undefined || (h.pos === h.lines.length - 1 && line === '')) {
          vars.set(varName(a[1]!), '');
          setResult(1);
        } else {
          vars.set(varName(a[1]!), cap(line));
          h.pos++;
          setResult(0);
        }
        break;
      }
      case 'fileclose':
        handles.delete(int(a[0]!));
        break;
      case 'filedelete':
        files.delete(str(a[0]!));
        break;
      case 'strconcat':
        vars.set(varName(a[0]!), cap((get(varName(a[0]!)) as string) + str(a[1]!)));
        break;
      case 'strtrim': {
        const set = str(a[1]!);
        let v = get(varName(a[0]!)) as string;
        while (v && set.includes(v[0]!)) v = v.slice(1);
        while (v && set.includes(v.at(-1)!)) v = v.slice(0, -1);
        vars.set(varName(a[0]!), v);
        break;
      }
      case 'strlen':
        setResult(Buffer.byteLength(str(a[0]!), 'utf8'));
        break;
      case 'strmatch': {
        const m = new RegExp(str(a[1]!)).exec(str(a[0]!));
        setResult(m ? m.index + 1 : 0);
        break;
      }
      case 'strcompare': {
        const l = str(a[0]!);
        const r = str(a[1]!);
        setResult(l === r ? 0 : l < r ? -1 : 1);
        break;
      }
      case 'strsplit': {
        const max = a[2] ? int(a[2]) : 10;
        const parts = str(a[0]!).split(str(a[1]!));
        const head = parts.slice(0, max - 1);
        if (parts.length >= max) head.push(parts.slice(max - 1).join(str(a[1]!)));
        for (let k = 1; k <= 9; k++) vars.set(`groupmatchstr${k}`, head[k - 1] ?? '');
        setResult(head.length);
        break;
      }
      case 'strdim':
        vars.set(
          varName(a[0]!),
          Array.from({ length: int(a[1]!) }, () => ''),
        );
        break;
      case 'sprintf2':
        vars.set(
          varName(a[0]!),
          cap(
            sprintf(
              str(a[1]!),
              a.slice(2).map((x) => evaluate(x)),
            ),
          ),
        );
        break;
      case 'messagebox':
        out.messages.push(str(a[0]!));
        break;
      case 'yesnobox':
        setResult(world.yesnobox?.(str(a[0]!)) ? 1 : 0);
        break;
      case 'listbox':
        setResult(world.listbox ? world.listbox(get(varName(a[2]!)) as string[]) : -1);
        break;
      case 'connect':
        out.connect = str(a[0]!);
        break;
      default:
        throw new Error(`line ${s.line.no}: the test interpreter does not implement ${s.word}`);
    }
  }
  return out;
}
