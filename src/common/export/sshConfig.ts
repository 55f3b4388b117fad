import { AppError } from '../errors.js';
import { makeAliases, type AliasMapping } from './alias.js';
import { base64UrlUtf8 } from './encoding.js';
import { escapeControls } from '../safeText.js';
import { shQuote } from '../shell.js';
import { isInstanceId, isPort, isRegionName } from '../vocab.js';

// OpenSSH client config for EC2 instances, inside a managed block (# BEGIN tagssh … # END tagssh)
// so a rewrite never touches the user's own lines. Each instance gets a Host whose connection
// goes through `tagssh proxy` (the address is resolved at connect time, so it survives IP
// changes) and whose host key is checked against TagSSH's own known_hosts (UserKnownHostsFile),
// keyed by the instance id (HostKeyAlias), strictly: a key TagSSH verified is the key OpenSSH
// checks, and a changed key is refused by both.
//
// The markers are exact whole lines. Nothing else the block contains can equal them: every
// comment that carries a Name quotes it and ends with the instance id.

export const BLOCK_BEGIN = '# BEGIN tagssh';
export const BLOCK_END = '# END tagssh';
/** The begin marker line of earlier versions (one line, explanation included), still recognised. */
const LEGACY_BEGIN = '# BEGIN tagssh (written by `tagssh export ssh-config`; edits inside this block are replaced on the next export)';

export interface SshConfigHost {
  instanceId: string;
  region: string;
  name: string | null;
  user: string;
  port: number;
  identityFile?: string | null;
  /** Reach the instance on its private address through this jump host (alias, Name or [user@]host[:port]). */
  jump?: string | null;
  /** Required with `jump`. */
  privateIp?: string | null;
  /**
   * `jump` is an outside host a tagssh:jump tag named (allowed in Settings): reached with
   * `ssh -W` and the agent kept away (IdentityAgent none), as TagSSH itself reaches it.
   */
  jumpWithoutAgent?: boolean;
  /** 'id' when several instances share the Name, so the proxy looks up this exact one. */
  resolveBy?: 'name' | 'id';
}

export interface SshConfigOptions {
  profile?: string | null;
  /** argv that starts TagSSH, default ["tagssh"] (the app passes its own binary). */
  tagsshCommand?: readonly string[];
  /** Host aliases already used outside the block, never reused. */
  reservedAliases?: Iterable<string>;
  exportedAt?: string;
  /**
   * TagSSH's known_hosts (absolute path): OpenSSH checks host keys there, strictly. Without it
   * OpenSSH uses its own known_hosts, and keys TagSSH verified are not shared.
   */
  knownHostsFile?: string;
  /** Bake `--start` into the ProxyCommand: connecting starts a stopped instance and waits for it. */
  startOnConnect?: boolean;
  /** The proxy connects to the private IP (over a VPN): `tagssh proxy --private`. */
  private?: boolean;
}

export interface SshConfigBlock {
  /** The managed block, "\n"-separated, from BEGIN to END (no trailing newline). */
  text: string;
  mapping: AliasMapping[];
}

function invalid(message: string, hint: string): AppError {
  return new AppError('EXPORT_INVALID', message, hint);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * An ssh_config argument: bare when plain, else in double quotes with `\` and `"` escaped
 * (OpenSSH's argv_split). `%` is doubled for keywords that expand %-tokens.
 */
export function sshConfigValue(value: string, what: string, opts: { tokens?: boolean } = {}): string {
  if (value === '' || CONTROL.test(value))
    throw invalid(`${what} ${JSON.stringify(value)} cannot be written into an ssh config.`, 'Use a value without control characters.');
  const v = opts.tokens ? value.replace(/%/g, '%%') : value;
  if (/^[A-Za-z0-9_.,:/@+~%-]+$/.test(v)) return v;
  return `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A word for the /bin/sh that runs ProxyCommand, with `%` doubled for ssh's token expansion. */
function proxyWord(word: string): string {
  if (CONTROL.test(word)) throw invalid(`${JSON.stringify(word)} cannot go into a ProxyCommand.`, 'Use a value without control characters.');
  const quoted = /^[A-Za-z0-9_.,:/@+=-]+$/.test(word) ? word : shQuote(word);
  return quoted.replace(/%/g, '%%');
}

/** Names passed bare to `tagssh proxy`; anything else travels as --name-b64. */
const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_.,:@+=-]*$/;

/** A comment line; untrusted text in it has every control made visible, so it stays one line. */
function comment(text: string): string {
  return `# ${escapeControls(text).replace(/[\u2028\u2029]/g, ' ')}`;
}

/**
 * `ssh -W` through an outside bastion a tag named, offering it the key file only: no agent keys,
 * no agent forwarding (OpenSSH's ProxyJump would offer the agent's keys to it). With TagSSH's
 * known_hosts its key is checked there, strictly, as TagSSH checks it.
 */
function agentlessJumpWords(h: SshConfigHost, knownHostsFile: string | undefined): string[] {
  const m = /^(?:([^@\s]+)@)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(h.jump ?? '');
  if (!m) throw invalid(`Jump host ${JSON.stringify(h.jump)} cannot be used as a ProxyCommand.`, 'Use [user@]host[:port].');
  return (
    [
      'ssh',
      '-o',
      'IdentityAgent=none',
      '-o',
      'ForwardAgent=no',
      ...(h.identityFile ? ['-o', 'IdentitiesOnly=yes', '-i', h.identityFile] : []),
      ...(knownHostsFile ? ['-o', `UserKnownHostsFile=${knownHostsFile}`, '-o', 'StrictHostKeyChecking=yes'] : []),
      ...(m[3] ? ['-p', m[3]] : []),
    ]
      .map(proxyWord)
      // ssh's own tokens, written as they are: the instance's private address and port.
      .concat(['-W', '%h:%p', '--', proxyWord(`${m[1] ? `${m[1]}@` : ''}${m[2]!.replace(/^\[|\]$/g, '')}`)])
  );
}

/** The ProxyCommand line's words for one host. */
function proxyCommandWords(h: SshConfigHost, opts: SshConfigOptions): string[] {
  const target =
    h.name !== null && (h.resolveBy ?? 'name') === 'name' ? (PLAIN_NAME.test(h.name) ? [h.name] : ['--name-b64', base64UrlUtf8(h.name)]) : [h.instanceId];
  return [
    ...(opts.tagsshCommand ?? ['tagssh']),
    'proxy',
    ...target,
    '--region',
    h.region,
    ...(opts.profile ? ['--profile', opts.profile] : []),
    ...(opts.private ? ['--private'] : []),
    ...(opts.startOnConnect ? ['--start'] : []),
    '--port',
  ];
}

/** Builds the managed block and the alias mapping (Name → Host alias) to show the user. */
export function sshConfigBlock(hosts: readonly SshConfigHost[], opts: SshConfigOptions = {}): SshConfigBlock {
  const mapping = makeAliases(
    hosts.map((h) => ({ instanceId: h.instanceId, name: h.name })),
    opts.reservedAliases ? { reserved: opts.reservedAliases } : {},
  );
  // A Name shared by several exported instances would make `tagssh proxy NAME` ambiguous.
  const nameCount = new Map<string, number>();
  for (const h of hosts) if (h.name !== null) nameCount.set(h.name, (nameCount.get(h.name) ?? 0) + 1);
  const aliasOf = new Map<string, string>();
  hosts.forEach((h, i) => {
    aliasOf.set(h.instanceId, mapping[i]!.alias);
    if (h.name !== null && !aliasOf.has(`name:${h.name}`)) aliasOf.set(`name:${h.name}`, mapping[i]!.alias);
  });
  const out = [
    BLOCK_BEGIN,
    comment('Written by `tagssh export ssh-config`; edits inside this block are replaced on the next export.'),
    comment(`Exported${opts.exportedAt ? ` at ${opts.exportedAt}` : ''}. Addresses are looked up at connect time by \`tagssh proxy\`.`),
  ];
  if (opts.knownHostsFile) {
    out.push(
      comment(
        "Host keys are checked against TagSSH's known_hosts. A new key is trusted when the console output vouches for it, else confirm it once with `tagssh ssh NAME --accept-new`.",
      ),
    );
  }
  hosts.forEach((h, i) => {
    if (!isInstanceId(h.instanceId)) throw invalid(`Instance id ${JSON.stringify(h.instanceId)} is not valid.`, 'Instance ids look like i-0123456789abcdef0.');
    if (!isRegionName(h.region)) throw invalid(`Region ${JSON.stringify(h.region)} is not valid.`, 'Regions look like eu-west-1.');
    if (!/^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/.test(h.user))
      throw invalid(`User ${JSON.stringify(h.user)} is not a POSIX user name.`, 'Pass --user with a plain user name.');
    if (!isPort(h.port)) throw invalid(`Port ${h.port} is not a TCP port.`, 'Use a port from 1 to 65535.');
    const m = mapping[i]!;
    out.push('', comment(`${h.name === null ? '(no Name tag)' : `Name ${JSON.stringify(h.name)}`} = ${h.instanceId} (${h.region})`));
    out.push(`Host ${m.alias}`);
    if (h.jump) {
      if (!h.privateIp || !/^[0-9.]+$/.test(h.privateIp))
        throw invalid(`${h.name ?? h.instanceId} has no private IP to reach through ${h.jump}.`, 'Export it without a jump host.');
      const jump = aliasOf.get(`name:${h.jump}`) ?? aliasOf.get(h.jump) ?? h.jump;
      if (!/^[A-Za-z0-9_.@:[\]-]+$/.test(jump))
        throw invalid(`Jump host ${JSON.stringify(h.jump)} cannot be used as ProxyJump.`, 'Use an exported instance or [user@]host[:port].');
      // The private IP survives stop/start; ProxyJump and ProxyCommand exclude each other.
      out.push(
        `  HostName ${h.privateIp}`,
        h.jumpWithoutAgent ? `  ProxyCommand ${agentlessJumpWords(h, opts.knownHostsFile).join(' ')}` : `  ProxyJump ${jump}`,
      );
    } else {
      out.push(`  HostName ${h.instanceId}`);
    }
    out.push(`  User ${h.user}`, `  Port ${h.port}`);
    if (h.identityFile) out.push(`  IdentityFile ${sshConfigValue(h.identityFile, 'Identity file', { tokens: true })}`);
    out.push(`  HostKeyAlias ${h.instanceId}`);
    if (opts.knownHostsFile) {
      // OpenSSH must neither learn nor update keys on its own: TagSSH verifies them (console output, confirmation).
      // CheckHostIP no: older OpenSSH would otherwise add the address (which changes) to the file.
      out.push(
        `  UserKnownHostsFile ${sshConfigValue(opts.knownHostsFile, 'Known hosts file', { tokens: true })}`,
        '  StrictHostKeyChecking yes',
        '  UpdateHostKeys no',
        '  CheckHostIP no',
      );
    }
    const byId = h.name !== null && nameCount.get(h.name)! > 1;
    if (!h.jump)
      out.push(
        `  ProxyCommand ${proxyCommandWords(byId ? { ...h, resolveBy: 'id' } : h, opts)
          .map(proxyWord)
          .join(' ')} %p`,
      );
  });
  // Lines after the block belong to no Host of ours: start a section that matches everything,
  // exactly as if they stood at the top of the file.
  out.push('', 'Host *', BLOCK_END);
  return { text: out.join('\n'), mapping };
}

interface BlockSpan {
  start: number;
  end: number;
}

/** Start and end offsets of every line of `text` that is exactly one of `markers` (a CR before the LF allowed). */
function markerLines(text: string, markers: readonly string[]): Array<{ index: number; length: number }> {
  const out: Array<{ index: number; length: number }> = [];
  let at = 0;
  while (at <= text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(at, end).replace(/\r$/, '');
    if (markers.includes(line)) out.push({ index: at, length: line.length });
    if (nl === -1) break;
    at = nl + 1;
  }
  return out;
}

function findBlock(text: string): BlockSpan | null {
  const begins = markerLines(text, [BLOCK_BEGIN, LEGACY_BEGIN]);
  const ends = markerLines(text, [BLOCK_END]);
  if (begins.length === 0) {
    if (ends.length > 0) throw invalid('The ssh config has a "# END tagssh" line without "# BEGIN tagssh".', 'Remove the stray marker line and export again.');
    return null;
  }
  if (begins.length > 1) throw invalid('The ssh config has more than one "# BEGIN tagssh" line.', 'Delete the extra block by hand, then export again.');
  const start = begins[0]!.index;
  const end = ends.find((e) => e.index > start);
  if (!end) throw invalid('The ssh config has "# BEGIN tagssh" without "# END tagssh".', 'Restore the end marker (or delete the half block) and export again.');
  return { start, end: end.index + end.length };
}

/**
 * Puts `block` into `existing` in place of the current managed block, leaving every other byte as
 * it was. With no block yet, it goes at the top (ssh uses the first value it finds, so the exported
 * hosts' settings win over a later `Host *`), followed by a blank line. Line endings follow the file's.
 */
export function replaceManagedBlock(existing: string, block: string): string {
  const span = findBlock(existing);
  // The old block's own line ending wins (a file may mix them); else the file's; else "\n".
  const ownEol = span ? /\r?\n/.exec(existing.slice(span.start, span.end))?.[0] : undefined;
  const eol = ownEol ?? (/\r\n/.test(existing) ? '\r\n' : '\n');
  const body = block.split(/\r?\n/).join(eol);
  if (span) return existing.slice(0, span.start) + body + existing.slice(span.end);
  if (existing === '') return body + eol;
  // A byte order mark (Windows editors) stays first, or it would break the user's first line.
  const bom = existing.startsWith('\ufeff') ? '\ufeff' : '';
  return bom + body + eol + eol + existing.slice(bom.length);
}

/** Removes the managed block (and the blank line the first export added after it). */
export function removeManagedBlock(existing: string): string {
  const span = findBlock(existing);
  if (!span) return existing;
  let end = span.end;
  for (const eol of ['\r\n\r\n', '\n\n', '\r\n', '\n']) {
    if (existing.startsWith(eol, end)) {
      end += eol.length;
      break;
    }
  }
  return existing.slice(0, span.start) + existing.slice(end);
}

/** Host aliases (without wildcards) defined outside the managed block, to avoid reusing them. */
export function hostAliasesOutsideBlock(text: string): string[] {
  const span = findBlock(text);
  const outside = span ? text.slice(0, span.start) + text.slice(span.end) : text;
  const aliases: string[] = [];
  for (const m of outside.matchAll(/^[ \t]*host(?:[ \t]*=[ \t]*|[ \t]+)([^\r\n#]*)/gim)) {
    for (const word of m[1]!.trim().split(/[ \t]+/)) {
      const w = word.replace(/^"|"$/g, '');
      if (w && !/[*?!]/.test(w)) aliases.push(w.toLowerCase());
    }
  }
  return aliases;
}
