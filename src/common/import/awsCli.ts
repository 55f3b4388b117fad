import { joinValues, knownText, type AwsLookup, type LookupField, type SourceRef, type Value } from './types.js';

// aws CLI calls in batch files and macros, the way teams find an instance's address today:
//   aws ec2 describe-instances --filters "Name=tag:Name,Values=web-1" --query "Reservations[].Instances[].PublicIpAddress" --output text
// Options may come before the service (`aws --profile prod ec2 …`) or after; `--opt value` and
// `--opt=value`; --filters in the CLI's shorthand (Name=…,Values=a,b) or JSON; several filters.
// Also `aws ssm start-session --target i-…` and `aws ec2-instance-connect ssh --instance-id i-…`,
// which name the instance directly.

/** Options of the aws CLI and these operations that take no value. */
const FLAGS = new Set([
  '--debug',
  '--no-verify-ssl',
  '--no-paginate',
  '--no-sign-request',
  '--no-cli-pager',
  '--dry-run',
  '--no-dry-run',
  '--cli-auto-prompt',
  '--no-cli-auto-prompt',
]);
/** Options that take one or more values (nargs='+'). */
const MANY = new Set(['--filters', '--filter', '--instance-ids', '--instance-id']);

function isAwsProgram(tok: string | null): boolean {
  return tok !== null && /(?:^|[\\/])aws(?:\.exe|\.cmd)?$/i.test(tok.replace(/^"|"$/g, ''));
}

/** The aws CLI call among `argv` (a whole command line, after the shell's quoting), or null. */
export function awsLookupOf(argv: Value[], at: SourceRef): AwsLookup | null {
  const start = argv.findIndex((a) => isAwsProgram(knownText(a)));
  if (start < 0) return null;
  const words: Value[] = [];
  const opts = new Map<string, Value[]>();
  for (let i = start + 1; i < argv.length; i++) {
    const a = argv[i]!;
    const t = knownText(a);
    if (t !== null && /^[|&<>]|^\d?>/.test(t)) break; // a pipe or redirection ends the command
    if (t?.startsWith('--')) {
      const eq = t.indexOf('=');
      const name = (eq > 0 ? t.slice(0, eq) : t).toLowerCase();
      if (FLAGS.has(name)) continue;
      const vals: Value[] = eq > 0 ? [[t.slice(eq + 1)]] : [];
      while (eq < 0 && i + 1 < argv.length && !knownText(argv[i + 1]!)?.startsWith('--')) {
        const nt = knownText(argv[i + 1]!);
        if (nt !== null && /^[|&<>]|^\d?>/.test(nt)) break;
        vals.push(argv[++i]!);
        if (!MANY.has(name)) break;
      }
      opts.set(name, [...(opts.get(name) ?? []), ...vals]);
    } else words.push(a);
  }
  const service = knownText(words[0] ?? [])?.toLowerCase();
  const op = knownText(words[1] ?? [])?.toLowerCase();
  const one = (n: string) => {
    const v = opts.get(n)?.[0];
    return v ? (knownText(v) ?? undefined) : undefined;
  };
  const lookup: AwsLookup = { at, names: [], instanceIds: [], otherFilters: [], field: 'unknown' };
  const region = one('--region');
  const profile = one('--profile');
  if (region) lookup.region = region;
  if (profile) lookup.profile = profile;
  const unresolved = (v: Value) => {
    if (knownText(v) === null) lookup.unresolved = v.map((p) => (typeof p === 'string' ? p : `{${p.from}}`)).join('');
  };

  const addId = (v: Value) => {
    const t = knownText(v);
    if (t === null) unresolved(v);
    else lookup.instanceIds.push(t);
  };

  if (service === 'ssm' && op === 'start-session') {
    for (const v of opts.get('--target') ?? []) addId(v);
    lookup.field = 'id';
    return lookup.instanceIds.length || lookup.unresolved ? lookup : null;
  }
  if (service === 'ec2-instance-connect') {
    for (const v of opts.get('--instance-id') ?? []) addId(v);
    lookup.field = 'id';
    return lookup.instanceIds.length || lookup.unresolved ? lookup : null;
  }
  if (service !== 'ec2' || op !== 'describe-instances') return null;
  for (const v of opts.get('--instance-ids') ?? []) {
    const t = knownText(v);
    if (t === null) unresolved(v);
    else lookup.instanceIds.push(...t.split(/[\s,]+/).filter(Boolean));
  }
  for (const v of [...(opts.get('--filters') ?? []), ...(opts.get('--filter') ?? [])]) {
    for (const f of filtersOf(v)) {
      if (f.name === 'tag:Name') {
        for (const x of f.values) {
          if (typeof x === 'string') lookup.names.push(x);
          else unresolved(x);
        }
      } else if (f.name === 'instance-id') {
        for (const x of f.values) addId(typeof x === 'string' ? [x] : x);
      } else lookup.otherFilters.push(`${f.name}=${f.values.map((x) => (typeof x === 'string' ? x : '?')).join(',')}`);
    }
  }
  const query = one('--query');
  if (query) {
    lookup.query = query;
    lookup.field = fieldOf(query);
  }
  return lookup;
}

function fieldOf(query: string): LookupField {
  if (/PublicIpAddress|PublicIp\b|Association\.PublicIp/.test(query)) return 'public';
  if (/PrivateIpAddress/.test(query)) return 'private';
  if (/PublicDnsName|PrivateDnsName/.test(query)) return 'dns';
  if (/InstanceId/.test(query)) return 'id';
  return 'unknown';
}

interface Filter {
  name: string;
  /** Each value: text, or the whole value when part of it is unknown. */
  values: Array<string | Value>;
}

/** One --filters argument: the CLI's shorthand (Name=x,Values=a,b) or its JSON form. */
export function filtersOf(v: Value): Filter[] {
  const t = knownText(v);
  if (t !== null && /^\s*[[{]/.test(t)) return jsonFilters(t);
  if (t !== null) {
    const f = shorthand(t);
    return f ? [f] : [];
  }
  // Part unknown (Values=%NAME%): the name is read from the known prefix, the values stay unknown.
  const head = typeof v[0] === 'string' ? v[0] : '';
  const m = /^\s*Name=([^,]+),Values=/i.exec(head);
  if (!m) return [];
  const rest = joinValues([head.slice(m[0].length)], v.slice(1));
  return [{ name: m[1]!, values: [rest] }];
}

function jsonFilters(t: string): Filter[] {
  try {
    const parsed: unknown = JSON.parse(t);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    return list.flatMap((x) => {
      const o = x as { Name?: unknown; Values?: unknown };
      if (typeof o?.Name !== 'string' || !Array.isArray(o.Values)) return [];
      return [{ name: o.Name, values: o.Values.filter((y): y is string => typeof y === 'string') }];
    });
  } catch {
    return [];
  }
}

/** Name=tag:Name,Values=a,b (also Values=[a,b], quoted values). */
function shorthand(t: string): Filter | null {
  const parts: string[] = [];
  let cur = '';
  let quote = '';
  let depth = 0;
  for (const ch of t) {
    if (quote) {
      if (ch === quote) quote = '';
      else cur += ch;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']') depth--;
    else if (ch === ',' && depth <= 1) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  let name: string | null = null;
  const values: string[] = [];
  let inValues = false;
  for (const p of parts) {
    const m = /^\s*(Name|Values)=(.*)$/i.exec(p);
    if (m) {
      inValues = m[1]!.toLowerCase() === 'values';
      if (inValues) values.push(m[2]!.trim());
      else name = m[2]!.trim();
    } else if (inValues) values.push(p.trim());
  }
  return name ? { name, values: values.filter((x) => x !== '') } : null;
}
