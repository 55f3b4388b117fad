import { lex, TtlSyntaxError, type Line, type Token } from './lexer.js';

// Static checks of a TTL macro beyond lexing: every command line starts with a known command
// (the reserved words of ttmparse.cpp CheckReservedWord), no reserved word or system variable is
// assigned (directly or as a command's output variable), if/elseif/else/endif are balanced,
// goto/call targets exist, and variables are assigned before they are read.

export const COMMANDS = new Set(
  (
    'beep bplusrecv bplussend break bringupbox basename call callmenu changedir checksum8 checksum8file checksum16 checksum16file ' +
    'checksum32 checksum32file clearscreen clipb2var closesbox closett code2str connect continue crc16 crc16file crc32 crc32file ' +
    'cygconnect delpassword disconnect dispstr do dirname dirnamebox else elseif enablekeyb end endif enduntil endwhile exec execcmnd ' +
    'exit expandenv fileclose fileconcat filecopy filecreate filedelete filelock filemarkptr filenamebox fileopen filereadln fileread ' +
    'filerename filesearch fileseek fileseekback filestat filestrseek filestrseek2 filetruncate fileunlock filewrite filewriteln ' +
    'findclose findfirst findnext flushrecv foldercreate folderdelete foldersearch for getdate getdir getenv getfileattr gethostname ' +
    'getipv4addr getipv6addr getmodemstatus getpassword getspecialfolder gettime gettitle getttdir getver goto if ifdefined include ' +
    'inputbox int2str intdim ispassword kmtfinish kmtget kmtrecv kmtsend listbox loadkeymap logautoclosemode logclose loginfo logopen ' +
    'logpause logrotate logstart logwrite loop makepath messagebox mpause next passwordbox pause quickvanrecv quickvansend random ' +
    'recvln regexoption restoresetup return rotateleft rotateright scprecv scpsend send sendbreak sendbroadcast sendlnbroadcast ' +
    'sendlnmulticast sendmulticast setfileattr setmulticastname sendfile sendkcode sendln setbaud setdate setdebug setdir setdlgpos ' +
    'setdtr setecho setenv setexitcode setflowctrl setpassword setrts setspeed setsync settime settitle show showtt sprintf sprintf2 ' +
    'statusbox str2code str2int strcompare strconcat strcopy strdim strinsert strjoin strlen strmatch strremove strreplace strscan ' +
    'strspecial strsplit strtrim testlink then tolower toupper unlink until uptime var2clipb waitregex wait wait4all waitevent waitln ' +
    'waitn waitrecv while xmodemrecv xmodemsend yesnobox ymodemrecv ymodemsend zmodemrecv zmodemsend'
  ).split(/\s+/),
);

export const OPERATOR_WORDS = new Set(['and', 'not', 'or', 'xor']);

export const SYSTEM_VARIABLES = new Set([
  'result',
  'timeout',
  'mtimeout',
  'inputstr',
  'matchstr',
  'paramcnt',
  'params',
  ...Array.from({ length: 9 }, (_, i) => `groupmatchstr${i + 1}`),
  ...Array.from({ length: 9 }, (_, i) => `param${i + 1}`),
]);

/** Which argument (0-based) of a command is a variable the command writes. */
const OUTPUT_ARGS: Record<string, number[]> = {
  getenv: [1],
  makepath: [0],
  fileopen: [0],
  filereadln: [1],
  fileread: [2],
  sprintf2: [0],
  strdim: [0],
  intdim: [0],
  int2str: [0],
  str2int: [0],
  strconcat: [0],
  strcopy: [3],
  strtrim: [0],
  gettime: [0],
  getdate: [0],
  inputbox: [],
  filenamebox: [],
};

export interface Statement {
  line: Line;
  kind: 'command' | 'assign' | 'label' | 'empty';
  /** command word or assigned variable (lower case) */
  word?: string;
  args: Token[][];
  /** for assignments: the index tokens (arrays) and the value tokens */
  index?: Token[];
  value?: Token[];
}

export interface CheckedMacro {
  statements: Statement[];
  lines: Line[];
}

/** Splits command arguments: each argument is one operand or a bracketed/parenthesised group. */
function splitArgs(tokens: Token[]): Token[][] {
  const args: Token[][] = [];
  let i = 0;
  while (i < tokens.length) {
    const arg: Token[] = [tokens[i]!];
    let depth = tokens[i]!.kind === 'op' && (tokens[i] as { text: string }).text === '(' ? 1 : 0;
    i++;
    while (i < tokens.length) {
      const t = tokens[i]!;
      if (t.kind === 'op' && (t.text === '[' || t.text === '(')) depth++;
      else if (t.kind === 'op' && (t.text === ']' || t.text === ')')) depth--;
      else if (depth === 0 && !(t.kind === 'op' && t.text !== '(')) {
        const prev = arg.at(-1)!;
        if (!(prev.kind === 'op' && prev.text !== ')' && prev.text !== ']')) break;
      }
      arg.push(t);
      i++;
    }
    args.push(arg);
  }
  return args;
}

function isOp(t: Token | undefined, text: string): boolean {
  return !!t && t.kind === 'op' && t.text === text;
}

export function checkTtl(source: string): CheckedMacro {
  const lines = lex(source);
  const statements: Statement[] = [];
  const assigned = new Set<string>();
  const labels = new Set<string>();
  const jumps: Array<{ no: number; label: string }> = [];
  const blocks: Array<{ no: number }> = [];
  const fail = (no: number, msg: string): never => {
    throw new TtlSyntaxError(no, msg);
  };
  const assign = (no: number, name: string) => {
    if (SYSTEM_VARIABLES.has(name) || COMMANDS.has(name) || OPERATOR_WORDS.has(name)) fail(no, `assigns the reserved name ${name}`);
    assigned.add(name);
  };
  const readVars = (no: number, tokens: Token[]) => {
    tokens.forEach((t, i) => {
      if (t.kind !== 'ident') return;
      if (OPERATOR_WORDS.has(t.lower) || t.lower === 'then') return;
      if (isOp(tokens[i - 1], '[') || SYSTEM_VARIABLES.has(t.lower)) return;
      if (!assigned.has(t.lower)) fail(no, `reads ${t.text} before it is assigned`);
    });
  };

  for (const line of lines) {
    if (line.label !== undefined) {
      if (labels.has(line.label)) fail(line.no, `label ${line.label} defined twice`);
      labels.add(line.label);
    }
    const t = line.tokens;
    if (t.length === 0) {
      statements.push({ line, kind: line.label !== undefined ? 'label' : 'empty', args: [] });
      continue;
    }
    const first = t[0]!;
    if (first.kind !== 'ident') fail(line.no, 'a statement must start with a command or a variable');
    const word = (first as { lower: string }).lower;
    // Assignment: name = value, or name[index] = value
    let eq = -1;
    if (isOp(t[1], '=')) eq = 1;
    else if (isOp(t[1], '[')) {
      let depth = 0;
      for (let i = 1; i < t.length; i++) {
        if (isOp(t[i], '[')) depth++;
        if (isOp(t[i], ']') && --depth === 0) {
          if (isOp(t[i + 1], '=')) eq = i + 1;
          break;
        }
      }
    }
    if (eq > 0 && (COMMANDS.has(word) || OPERATOR_WORDS.has(word))) fail(line.no, `assigns the reserved name ${word}`);
    if (eq > 0) {
      const value = t.slice(eq + 1);
      if (value.length === 0) fail(line.no, 'assignment without a value');
      readVars(line.no, value);
      if (eq > 1) {
        if (!assigned.has(word)) fail(line.no, `array ${word} used before strdim/intdim`);
      } else assign(line.no, word);
      statements.push({ line, kind: 'assign', word, args: [], index: t.slice(2, eq - 1), value });
      continue;
    }
    if (!COMMANDS.has(word)) fail(line.no, `unknown command ${word}`);
    const rest = t.slice(1);
    if (word === 'if' || word === 'elseif' || word === 'while' || word === 'until') {
      const thenAt = rest.findIndex((x) => x.kind === 'ident' && x.lower === 'then');
      if (word === 'elseif') {
        if (thenAt !== rest.length - 1) fail(line.no, 'elseif needs "then" at the end');
        if (!blocks.length) fail(line.no, 'elseif without if');
      } else if (word === 'if' && thenAt === rest.length - 1) blocks.push({ no: line.no });
      else if (word === 'if') fail(line.no, 'one-line if is not used by TagSSH macros');
      readVars(line.no, thenAt >= 0 ? rest.slice(0, thenAt) : rest);
      statements.push({ line, kind: 'command', word, args: [thenAt >= 0 ? rest.slice(0, thenAt) : rest] });
      continue;
    }
    if (word === 'else' || word === 'endif') {
      if (rest.length) fail(line.no, `${word} takes no arguments`);
      if (!blocks.length) fail(line.no, `${word} without if`);
      if (word === 'endif') blocks.pop();
      statements.push({ line, kind: 'command', word, args: [] });
      continue;
    }
    const args = splitArgs(rest);
    if (word === 'goto' || word === 'call') {
      const target = args[0]?.[0];
      if (!target || target.kind !== 'ident') fail(line.no, `${word} needs a label`);
      jumps.push({ no: line.no, label: (target as { lower: string }).lower });
      statements.push({ line, kind: 'command', word, args });
      continue;
    }
    const outs = OUTPUT_ARGS[word] ?? [];
    args.forEach((arg, i) => {
      if (outs.includes(i)) {
        const v = arg[0];
        if (arg.length !== 1 || !v || v.kind !== 'ident') fail(line.no, `${word} argument ${i + 1} must be a variable`);
        if (word === 'strconcat' || word === 'strtrim') readVars(line.no, arg);
        assign(line.no, (v as { lower: string }).lower);
      } else readVars(line.no, arg);
    });
    statements.push({ line, kind: 'command', word, args });
  }
  if (blocks.length) fail(blocks.at(-1)!.no, 'if without endif');
  for (const j of jumps) if (!labels.has(j.label)) fail(j.no, `no label ${j.label}`);
  return { statements, lines };
}
