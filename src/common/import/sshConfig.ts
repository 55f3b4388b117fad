import { targetOfHost } from './ec2Address.js';
import type { FoundHost, Note, SourceRef } from './types.js';

// ~/.ssh/config as OpenSSH reads it (ssh_config(5)): keywords are case-insensitive, `Key value` or
// `Key=value`, values may be quoted; for each setting the first value obtained wins; a Host line's
// patterns (`*`, `?`, `!negation`) decide which blocks apply to an alias; Match blocks are
// conditions an importer cannot evaluate and are passed over; Include pulls in other files. Each
// Host alias that is not a pattern becomes a host, its HostName (or the alias itself) telling
// what it points at. The block TagSSH's own export writes is left alone.

interface Block {
  patterns: string[] | null; // null: a Match block
  at: SourceRef;
  settings: Map<string, string>;
}

/** The text of an Include'd file (ssh's ~ and relative-to-~/.ssh rules are the caller's). */
type SshInclude = (pattern: string) => Array<{ file: string; text: string }>;

function words(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2]!);
  return out;
}

function blocksOf(file: string, text: string, include: SshInclude, notes: Note[], depth: number, into: Block[], top: Block): void {
  let cur = top;
  let inTagssh = false;
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    const at = { file, line: i + 1 };
    const line = raw.trim();
    if (line === '# BEGIN tagssh') {
      inTagssh = true;
      notes.push({ code: 'tagssh-block', at });
      return;
    }
    if (line === '# END tagssh') return void (inTagssh = false);
    if (inTagssh || line === '' || line.startsWith('#')) return;
    const m = /^(\S+?)(?:\s*=\s*|\s+)(.*)$/.exec(line);
    if (!m) return;
    const key = m[1]!.toLowerCase();
    const value = m[2]!.trim();
    if (key === 'host') {
      cur = { patterns: words(value), at, settings: new Map() };
      into.push(cur);
    } else if (key === 'match') {
      cur = { patterns: null, at, settings: new Map() };
      into.push(cur);
    } else if (key === 'include') {
      if (depth >= 16) return void notes.push({ code: 'include-too-deep', at, detail: value });
      for (const pattern of words(value)) {
        const files = include(pattern);
        if (!files.length) notes.push({ code: 'include-missing', at, detail: pattern });
        for (const f of files) blocksOf(f.file, f.text, include, notes, depth + 1, into, cur);
      }
    } else if (!cur.settings.has(key)) cur.settings.set(key, value.replace(/^"(.*)"$/, '$1'));
  });
}

function glob(pattern: string, s: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  );
  return re.test(s);
}

function applies(patterns: string[], alias: string): boolean {
  let hit = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (glob(p.slice(1), alias)) return false;
    } else if (glob(p, alias)) hit = true;
  }
  return hit;
}

/** The Host aliases of a config with what they resolve to (HostName, User, Port, IdentityFile). */
export function parseSshConfig(file: string, text: string, include: SshInclude = () => []): { hosts: FoundHost[]; notes: Note[] } {
  const notes: Note[] = [];
  const top: Block = { patterns: ['*'], at: { file, line: 1 }, settings: new Map() };
  const blocks: Block[] = [top];
  blocksOf(file, text, include, notes, 0, blocks, top);
  const hosts: FoundHost[] = [];
  const seen = new Set<string>();
  for (const b of blocks) {
    for (const alias of b.patterns ?? []) {
      if (/[*?!]/.test(alias) || seen.has(alias)) continue;
      seen.add(alias);
      const get = (k: string): string | undefined => {
        for (const x of blocks) if (x.patterns && applies(x.patterns, alias) && x.settings.has(k)) return x.settings.get(k);
        return undefined;
      };
      const hostName = (get('hostname') ?? alias).replace(/%h/g, alias).replace(/%%/g, '%');
      const h: FoundHost = { at: b.at, via: 'ssh-config', target: targetOfHost(hostName), alias, passwordFound: false };
      const user = get('user');
      const port = Number(get('port'));
      const key = get('identityfile');
      if (user) h.user = user;
      if (port >= 1 && port <= 65535) h.port = port;
      if (key && key.toLowerCase() !== 'none') {
        h.keyFile = key;
        if (key.startsWith('~')) h.keyFileEnv = 'HOME';
      }
      hosts.push(h);
    }
  }
  return { hosts, notes };
}
