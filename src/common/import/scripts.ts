import { awsLookupOf } from './awsCli.js';
import { launchOf, type Launch } from './launch.js';
import { cmdCommands, expandCmd, shCommands, type Command } from './shellWords.js';
import { knownText, type AwsLookup, type SourceRef, type Value } from './types.js';

// Batch files (.bat/.cmd) and shell scripts (.sh) the way teams write them around Tera Term and
// the aws CLI:
//   set NAME=web-1
//   for /f "usebackq delims=" %%i in (`aws ec2 describe-instances --filters "Name=tag:Name,Values=%NAME%" …`) do set IP=%%i
//   "C:\Program Files (x86)\teraterm\ttermpro.exe" %IP%:22 /ssh2 /auth=publickey /user=ec2-user /keyfile=%USERPROFILE%\.ssh\web.pem
// and
//   IP=$(aws ec2 describe-instances --filters Name=tag:Name,Values=web-1 --query … --output text)
//   ssh -i ~/.ssh/web.pem ec2-user@"$IP"
// Lines are read in order; a variable set inside an if/case/menu branch keeps every value it may
// have (up to a bound), so a menu script yields each of its servers.

const MAX_VALUES = 8;
const MAX_COMBOS = 16;

type Vars = Map<string, Value[]>;

/** What one line of a script is read with: where it is, its variables' values, and what it adds to. */
interface LineContext {
  at: SourceRef;
  lookupVar: (n: string) => Value | undefined;
  vars: Vars;
  files: FileLookups;
  launches: Launch[];
  /** Inside a branch: what it sets is one more value a variable may have. */
  conditional: boolean;
}

interface ScriptResult {
  launches: Launch[];
}

/** A file an aws call's output was redirected into, so a later read of it is that call's answer. */
type FileLookups = Map<string, AwsLookup>;

function setVar(vars: Vars, name: string, v: Value, conditional: boolean): void {
  const old = vars.get(name) ?? [];
  if (!conditional || !old.length) vars.set(name, [v]);
  else if (old.length < MAX_VALUES && !old.some((x) => JSON.stringify(x) === JSON.stringify(v))) vars.set(name, [...old, v]);
}

/** The line once per combination of the values its variables may have (bounded). */
function combos(line: string, vars: Vars, names: (line: string) => string[]): Array<(n: string) => Value | undefined> {
  let out: Array<Map<string, Value>> = [new Map()];
  for (const n of new Set(names(line))) {
    const vs = vars.get(n);
    if (!vs || vs.length < 2) continue;
    out = out.flatMap((m) => vs.map((v) => new Map(m).set(n, v))).slice(0, MAX_COMBOS);
  }
  return out.map((m) => (n: string) => m.get(n) ?? vars.get(n)?.[0]);
}

/** A file name as written (a variable it is built from kept by name), so a write and a later read of it meet. */
function fileKey(v: Value): string {
  return v
    .map((p) => (typeof p === 'string' ? p : `{${p.from}}`))
    .join('')
    .toLowerCase();
}

/** The profile and region an aws call runs with when it names none: AWS_PROFILE / AWS_REGION set earlier in the file. */
function withEnv(lookup: AwsLookup, lookupVar: (n: string) => Value | undefined): AwsLookup {
  const env = (n: string) => {
    const v = lookupVar(n) ?? lookupVar(n.toLowerCase());
    return v ? (knownText(v) ?? undefined) : undefined;
  };
  const profile = lookup.profile ?? env('AWS_PROFILE');
  const region = lookup.region ?? env('AWS_REGION') ?? env('AWS_DEFAULT_REGION');
  return { ...lookup, ...(profile ? { profile } : {}), ...(region ? { region } : {}) };
}

/** An unknown value that is the answer of `lookup`. */
function answerOf(lookup: AwsLookup | undefined, from: string, at: SourceRef): Value {
  return [lookup ? { from, at, lookup } : { from, at }];
}

// ---- batch files ----------------------------------------------------------------------------------

export function runBatch(file: string, text: string): ScriptResult {
  const vars: Vars = new Map();
  const files: FileLookups = new Map();
  const launches: Launch[] = [];
  let depth = 0; // inside ( … ) blocks of if/for: what is set there is conditional
  const lines = joinContinuations(text.split(/\r\n|\r|\n/), /\^$/);
  for (const { line: raw, n } of lines) {
    const at = { file, line: n };
    let line = raw.trim().replace(/^@/, '');
    if (/^(rem(\s|$)|::)/i.test(line) || /^:/.test(line) || line === '') continue;
    const opens = (line.match(/\(\s*$/) ? 1 : 0) - (/^\)/.test(line) ? 1 : 0);
    let conditional = depth > 0;
    line = line.replace(/^\)\s*(else\s*\(?)?/i, '');
    // if [/i] [not] COND COMMAND: the command is conditional.
    const ifm =
      /^if\s+(?:\/i\s+)?(?:not\s+)?(?:exist\s+\S+|defined\s+\S+|errorlevel\s+\d+|"[^"]*"\s*==\s*"[^"]*"|\S+\s*==\s*\S+|\S+\s+(?:equ|neq|lss|leq|gtr|geq)\s+\S+)\s+(.*)$/i.exec(
        line,
      );
    if (ifm) {
      line = ifm[1]!.replace(/^\(\s*/, '');
      conditional = true;
    }
    depth = Math.max(0, depth + opens);
    combos(line, vars, (l) => [...l.matchAll(/[%!]([^%!\s=]+)[%!]/g)].map((m) => m[1]!.toUpperCase())).forEach((lookupVar, i) =>
      batchLine(line, { at, lookupVar, vars, files, launches, conditional: conditional || i > 0 }),
    );
  }
  return { launches };
}

function batchLine(line: string, ctx: LineContext): void {
  const { at, lookupVar, vars, files, launches, conditional } = ctx;
  // for /f ["opts"] %%v in ('command' | `command`) do set NAME=%%v
  const forf = /^for\s+\/f\s+(?:"[^"]*"\s+)?%%?(\w)\s+in\s+\((['`])(.*)\2\)\s+do\s+(?:@?set\s+"?(\w+)=%%?\1"?|(.*))$/i.exec(line);
  if (forf) {
    const cmds = cmdCommands(expandCmd(forf[3]!, lookupVar, at));
    const found = cmds.map((c) => awsLookupOf(c.argv, at)).find((l) => l);
    const lookup = found ? withEnv(found, lookupVar) : undefined;
    if (forf[4]) setVar(vars, forf[4].toUpperCase(), answerOf(lookup ?? undefined, `%${forf[4]}%`, at), conditional);
    if (lookup) launches.push({ at, lookup });
    return;
  }
  // set /p NAME=<file  (the first line of a file, e.g. one an aws call wrote)
  const setp = /^set\s+\/p\s+"?(\w+)=\s*<\s*"?([^"]+?)"?\s*$/i.exec(line);
  if (setp) {
    const f = fileKey(expandCmd(setp[2]!, lookupVar, at));
    setVar(vars, setp[1]!.toUpperCase(), answerOf(files.get(f), `%${setp[1]}%`, at), conditional);
    return;
  }
  const set = /^set\s+(\/a\s+|\/p\s+)?"?(\w+)=(.*?)"?\s*$/i.exec(line);
  if (set) {
    const name = set[2]!.toUpperCase();
    // set /a computes, set /p asks the person: neither value is known here.
    setVar(vars, name, set[1] ? [{ from: `%${set[2]}%`, at }] : expandCmd(set[3]!, lookupVar, at), conditional);
    return;
  }
  for (const cmd of cmdCommands(expandCmd(line, lookupVar, at))) record(cmd, at, files, launches, lookupVar);
}

function record(cmd: Command, at: SourceRef, files: FileLookups, launches: Launch[], lookupVar: (n: string) => Value | undefined): void {
  const found = launchOf(cmd, at);
  if (!found) return;
  const l = found.lookup ? { ...found, lookup: withEnv(found.lookup, lookupVar) } : found;
  launches.push(l);
  if (l.lookup && cmd.out) files.set(fileKey(cmd.out), l.lookup);
}

function joinContinuations(lines: string[], cont: RegExp): Array<{ line: string; n: number }> {
  const out: Array<{ line: string; n: number }> = [];
  let acc = '';
  let start = 0;
  lines.forEach((l, i) => {
    if (!acc) start = i + 1;
    if (cont.test(l)) acc += l.replace(cont, '') + ' ';
    else {
      out.push({ line: acc + l, n: start });
      acc = '';
    }
  });
  if (acc) out.push({ line: acc, n: start });
  return out;
}

// ---- shell scripts --------------------------------------------------------------------------------

export function runShell(file: string, text: string): ScriptResult {
  const vars: Vars = new Map();
  const files: FileLookups = new Map();
  const launches: Launch[] = [];
  let depth = 0; // inside if/case/for/while/function bodies: what is set there is conditional
  for (const { line: raw, n } of joinContinuations(text.split(/\r\n|\r|\n/), /\\$/)) {
    const at = { file, line: n };
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (/^(if|case|for|while|until|select)\b|\(\)\s*\{?$|^function\b/.test(line)) depth++;
    if (/^(fi|esac|done|\})\b/.test(line)) depth = Math.max(0, depth - 1);
    const conditional = depth > 0 || /^(elif|else|then|do)\b|^[^()]*\)\s/.test(line);
    const body = line.replace(/^(then|else|do|elif\s.*?;\s*then)\s+/, '').replace(/^[^()"'\s]+\)\s+/, '');
    // A line run once per value its variables may have: what it sets then has each of those values.
    combos(body, vars, (l) => [...l.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!)).forEach((lookupVar, i) =>
      shellLine(body, { at, lookupVar, vars, files, launches, conditional: conditional || i > 0 }),
    );
  }
  return { launches };
}

function shellLine(line: string, ctx: LineContext): void {
  const { at, lookupVar, vars, files, launches, conditional } = ctx;
  const subst = (inner: string): Value => {
    const cmds = shCommands(inner, lookupVar, at, () => [{ from: '$()', at }]);
    const found = cmds.map((c) => awsLookupOf(c.argv, at)).find((l) => l);
    const lookup = found ? withEnv(found, lookupVar) : undefined;
    if (lookup) {
      launches.push({ at, lookup });
      return answerOf(lookup, '$()', at);
    }
    // $(cat FILE) / $(< FILE): a file an aws call wrote.
    const cat = cmds[0] && knownText(cmds[0].argv[0] ?? []) === 'cat' ? cmds[0].argv[1] : undefined;
    return answerOf(cat ? files.get(fileKey(cat)) : undefined, '$()', at);
  };
  // NAME=value, or NAME=value COMMAND… (the variable set for that command only: the command is recorded).
  const assign = /^(?:export\s+|readonly\s+|local\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
  if (assign) {
    const cmds = shCommands(`: ${assign[2]}`, lookupVar, at, subst);
    const first = cmds[0];
    if (first && first.argv.length > 2) record({ argv: first.argv.slice(2), ...(first.out ? { out: first.out } : {}) }, at, files, launches, lookupVar);
    else setVar(vars, assign[1]!, first?.argv[1] ?? [''], conditional);
    for (const c of cmds.slice(1)) record(c, at, files, launches, lookupVar);
    return;
  }
  // read NAME < FILE
  const read = /^read\s+(?:-r\s+)?([A-Za-z_]\w*)\s*<\s*(\S+)/.exec(line);
  if (read) {
    const f = fileKey(shCommands(`: ${read[2]}`, lookupVar, at, subst)[0]?.argv[1] ?? []);
    setVar(vars, read[1]!, answerOf(files.get(f), `$${read[1]}`, at), conditional);
    return;
  }
  for (const cmd of shCommands(line, lookupVar, at, subst)) record(cmd, at, files, launches, lookupVar);
}
