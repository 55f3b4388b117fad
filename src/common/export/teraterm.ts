import { AppError } from '../errors.js';
import { makeAliases } from './alias.js';
import { base64UrlUtf8, truncateUtf8 } from './encoding.js';
import { assertTtlLines, ttlComment, ttlString, ttsshValue } from './ttl.js';
import { INSTANCE_ID, REGION_NAME } from '../vocab.js';
import type { DocLang } from '../bench/words.js';
import { ttlHeader, ttlWord, type TtlHeaderId, type TtlWordId } from './ttlWords.js';

// Tera Term macros (.ttl) that connect to an EC2 instance by its Name tag.
//  - dynamic (default): every run asks a helper (`tagssh resolve`, or the aws CLI) for the
//    current address, reads it from a temp file, checks it, then `connect`s — so the macro keeps
//    working after a stop/start or an Elastic IP move.
//  - static: today's address baked in, with a header saying which instance and when.
// Everything user-controlled is written with ttlString (TTL literals have no escapes) and the
// Name reaches cmd.exe only as base64url, an alphabet cmd cannot misread.

export type TtlAuth = 'publickey' | 'pageant' | 'password' | 'challenge';

export interface TeraTermHost {
  instanceId: string;
  region: string;
  /** The Name tag, or null when the instance has none (it is then looked up by id). */
  name: string | null;
  /** Current address; required in static mode, shown in the header otherwise. */
  address: string | null;
  port: number;
  user: string;
  /** Absolute Windows path to the private key (publickey auth). */
  keyFile?: string | null;
  /** Default: 'publickey' with a keyFile, else 'pageant' (the agent). */
  auth?: TtlAuth;
  /** The key has a passphrase: add /ask4passwd so TTSSH asks for it (never stored). */
  keyHasPassphrase?: boolean;
  /** 'id' when the Name is shared by several instances, so a lookup by name would be ambiguous. */
  resolveBy?: 'name' | 'id';
}

export interface TeraTermOptions {
  mode?: 'dynamic' | 'static';
  /** Lookup helper for dynamic mode: `tagssh resolve` (default) or the aws CLI (for machines without TagSSH). */
  helper?: 'tagssh' | 'aws-cli';
  profile?: string | null;
  /** Resolve the private address (for a VPN or Direct Connect). */
  private?: boolean;
  /** How cmd.exe finds TagSSH; default "tagssh" on PATH. */
  tagsshPath?: string;
  /** ISO timestamp written in the header (passed in so output is reproducible). */
  exportedAt: string;
  /** The language of the macro's message boxes, menu and header comments (default English). */
  lang?: DocLang;
}

export interface ExportFile {
  fileName: string;
  content: string;
}

const LABEL_BYTES = 200;
const TITLE = "'TagSSH'";

function invalid(message: string, hint: string): AppError {
  return new AppError('EXPORT_INVALID', message, hint);
}

function displayName(h: TeraTermHost): string {
  return h.name ?? h.instanceId;
}

function checkSafeToken(value: string, what: string, re: RegExp, hint: string): string {
  if (!re.test(value)) throw invalid(`${what} ${JSON.stringify(value)} cannot be written safely into a Tera Term macro.`, hint);
  return value;
}

const ID_RE = INSTANCE_ID;
const REGION_RE = REGION_NAME;
const PROFILE_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function checkHost(h: TeraTermHost): void {
  checkSafeToken(h.instanceId, 'Instance id', ID_RE, 'Instance ids look like i-0123456789abcdef0.');
  checkSafeToken(h.region, 'Region', REGION_RE, 'Regions look like eu-west-1.');
  if (!Number.isInteger(h.port) || h.port < 1 || h.port > 65535) throw invalid(`Port ${h.port} is not a TCP port.`, 'Use a port from 1 to 65535.');
  if (!h.user) throw invalid(`No login user for ${displayName(h)}.`, 'Pass --user.');
}

/** The TTSSH options after host:port — exactly one /auth=, /ask4passwd when a secret must be asked. */
export function ttsshOptions(h: TeraTermHost): string {
  const auth: TtlAuth = h.auth ?? (h.keyFile ? 'publickey' : 'pageant');
  const opts = ['/ssh2', `/auth=${auth}`, `/user=${ttsshValue(h.user, 'The user name')}`];
  if (auth === 'publickey') {
    if (!h.keyFile)
      throw invalid(
        `Public key authentication for ${displayName(h)} needs a key file.`,
        'Pass --keyfile C:\\path\\to\\key.pem, or use Pageant (no --keyfile).',
      );
    if (!/^(?:[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/])/.test(h.keyFile)) {
      throw invalid(
        `Key file ${JSON.stringify(h.keyFile)} is not an absolute Windows path.`,
        'Tera Term runs on Windows: pass a path like C:\\Users\\me\\.ssh\\web.pem.',
      );
    }
    opts.push(`/keyfile=${ttsshValue(h.keyFile, 'The key file path')}`);
    if (h.keyHasPassphrase) opts.push('/ask4passwd');
  } else if (h.keyFile) {
    throw invalid(`A key file was given but authentication is ${auth}.`, 'Drop --keyfile, or use publickey authentication.');
  } else if (auth === 'password' || auth === 'challenge') {
    opts.push('/ask4passwd');
  }
  return opts.join(' ');
}

/** cmd.exe line that runs the lookup and leaves its stdout in %TEMP%\<file>. */
function lookupCommand(h: TeraTermHost, opts: TeraTermOptions, start: boolean): string {
  const outFile = `"%TEMP%\\${addrFileName(h)}"`;
  let inner: string;
  if ((opts.helper ?? 'tagssh') === 'aws-cli') {
    // The aws CLI cannot take an encoded name, and a Name filter would need cmd and JMESPath
    // quoting of user text; the instance id is the stable identity and is always safe.
    const field = opts.private ? 'PrivateIpAddress' : 'PublicIpAddress';
    inner = [
      'aws ec2 describe-instances',
      `--instance-ids ${h.instanceId}`,
      `--region ${h.region}`,
      opts.profile ? `--profile ${opts.profile}` : '',
      `--query Reservations[0].Instances[0].[State.Name,${field}]`,
      '--output text',
    ]
      .filter(Boolean)
      .join(' ');
  } else {
    const tool = opts.tagsshPath ?? 'tagssh';
    // eslint-disable-next-line no-control-regex
    if (/["%^&|<>\x00-\x1f]/.test(tool))
      throw invalid(`The TagSSH path ${JSON.stringify(tool)} has characters cmd.exe would interpret.`, 'Use a path without " % ^ & | < >.');
    const exe = /\s/.test(tool) ? `"${tool}"` : tool;
    const target = h.name !== null && (h.resolveBy ?? 'name') === 'name' ? `--name-b64 ${base64UrlUtf8(h.name)}` : h.instanceId;
    inner = [
      exe,
      'resolve',
      target,
      `--region ${h.region}`,
      opts.profile ? `--profile ${opts.profile}` : '',
      opts.private ? '--private' : '',
      start ? '--start' : '',
    ]
      .filter(Boolean)
      .join(' ');
  }
  // /d: no AutoRun; /s /c "…": cmd strips exactly the outer quotes and runs the rest as written.
  return `cmd /d /s /c "${inner} > ${outFile}"`;
}

function addrFileName(h: TeraTermHost): string {
  return `tagssh-${h.instanceId}.addr`;
}

function whereText(h: TeraTermHost, opts: TeraTermOptions): string {
  return `${h.instanceId}, ${h.region}${opts.profile ? `, profile ${opts.profile}` : ''}`;
}

function checkOptions(opts: TeraTermOptions): void {
  if (opts.profile)
    checkSafeToken(opts.profile, 'AWS profile', PROFILE_RE, 'Profile names with only letters, digits, "_", "." and "-" can be baked into a macro.');
}

/** Assignments that describe one target to the shared body (dynamic) or connect it (static). */
function targetAssignments(h: TeraTermHost, opts: TeraTermOptions, indent: string): string[] {
  const label = truncateUtf8(displayName(h), LABEL_BYTES);
  const what = `the macro for ${JSON.stringify(truncateUtf8(displayName(h), 60))}`;
  const lines: string[] = [`tg_label = ${ttlString(label, `The name in ${what}`)}`];
  if ((opts.mode ?? 'dynamic') === 'static') {
    if (!h.address)
      throw invalid(
        `${displayName(h)} has no address right now, so a static macro cannot be made.`,
        'Start the instance first, or export a dynamic macro (the default).',
      );
    checkSafeToken(h.address, 'Address', /^[0-9A-Za-z.-]+$/, 'Addresses are IPv4 addresses or DNS names.');
    lines.push(`tg_cmdline = ${ttlString(`${h.address}:${h.port} ${ttsshOptions(h)}`, `The connect line in ${what}`)}`);
  } else {
    lines.push(`tg_where = ${ttlString(whereText(h, opts), `The description in ${what}`)}`);
    lines.push(`tg_addrfile = ${ttlString(addrFileName(h), `The temp file name in ${what}`)}`);
    lines.push(`tg_lookup = ${ttlString(lookupCommand(h, opts, false), `The lookup command in ${what}`)}`);
    if ((opts.helper ?? 'tagssh') === 'tagssh') lines.push(`tg_start = ${ttlString(lookupCommand(h, opts, true), `The start command in ${what}`)}`);
    lines.push(`tg_opts = ${ttlString(`:${h.port} ${ttsshOptions(h)}`, `The connect options in ${what}`)}`);
  }
  return lines.map((l) => indent + l);
}

function msg(format: string, ...args: string[]): string[] {
  return [`sprintf2 tg_msg ${ttlString(format, 'A message')} ${args.join(' ')}`.trimEnd(), `messagebox tg_msg ${TITLE}`];
}

/** The body shared by every dynamic macro: run the lookup, handle failures, read, check, connect. */
function dynamicBody(opts: TeraTermOptions): string[] {
  const aws = (opts.helper ?? 'tagssh') === 'aws-cli';
  const word = (id: TtlWordId) => ttlWord(id, opts.lang);
  const L: string[] = ["getenv 'TEMP' tg_tmp", 'makepath tg_addrpath tg_tmp tg_addrfile', "exec tg_lookup 'hide' 1", 'tg_rc = result'];
  if (!aws) {
    L.push(
      'if tg_rc = 5 then',
      `  sprintf2 tg_msg ${ttlString(word('askStart'), 'A message')} tg_label`,
      `  yesnobox tg_msg ${TITLE}`,
      '  if result = 0 then',
      '    end',
      '  endif',
      "  exec tg_start 'hide' 1",
      '  tg_rc = result',
      'endif',
    );
  }
  L.push('if tg_rc = 9009 then');
  L.push(...(aws ? msg(word('noAws')) : msg(word('noTagssh'))).map((l) => '  ' + l), '  end');
  if (!aws) {
    L.push('elseif tg_rc = 3 then', ...msg(word('noAddress'), 'tg_label', 'tg_where').map((l) => '  ' + l), '  end');
    L.push('elseif tg_rc = 4 then', ...msg(word('ambiguous'), 'tg_label').map((l) => '  ' + l), '  end');
    L.push('elseif tg_rc = 5 then', ...msg(word('stillStopped'), 'tg_label').map((l) => '  ' + l), '  end');
  }
  L.push(
    'elseif tg_rc <> 0 then',
    ...msg(word(aws ? 'lookupFailedAws' : 'lookupFailed'), 'tg_label', 'tg_where', 'tg_rc').map((l) => '  ' + l),
    '  end',
    'endif',
    'fileopen tg_fh tg_addrpath 0 1',
    'if tg_fh < 0 then',
    ...msg(word('unreadable'), 'tg_label', 'tg_addrpath').map((l) => '  ' + l),
    '  end',
    'endif',
    "tg_line = ''",
    'filereadln tg_fh tg_line',
    'fileclose tg_fh',
    'filedelete tg_addrpath',
  );
  if (aws) {
    // aws --output text prints "<state><TAB><address>" (or "None" for a missing field).
    L.push(
      "tg_state = ''",
      "tg_addr = ''",
      'strsplit tg_line #9 2',
      'tg_state = groupmatchstr1',
      'tg_addr = groupmatchstr2',
      "strcompare tg_state 'running'",
      'if result <> 0 then',
      ...msg(word('notRunning'), 'tg_label', 'tg_state').map((l) => '  ' + l),
      '  end',
      'endif',
      "strcompare tg_addr 'None'",
      'if result = 0 then',
      "  tg_addr = ''",
      'endif',
    );
  } else {
    L.push('tg_addr = tg_line');
  }
  L.push(
    "strtrim tg_addr ' '#9",
    'strlen tg_addr',
    'if result = 0 then',
    ...msg(word(opts.private ? 'emptyPrivate' : 'emptyPublic'), 'tg_label').map((l) => '  ' + l),
    '  end',
    'endif',
    // Only an address may reach the connect line: anything else could smuggle TTSSH options.
    "strmatch tg_addr '^[0-9A-Za-z.-]+$'",
    'if result = 0 then',
    ...msg(word('notAddress'), 'tg_label', 'tg_addr').map((l) => '  ' + l),
    '  end',
    'endif',
    'tg_cmdline = tg_addr',
    'strconcat tg_cmdline tg_opts',
    'connect tg_cmdline',
    'end',
  );
  return L;
}

/** The header comments, in the macro's language; `title` is the first line's words. */
function header(title: string, opts: TeraTermOptions, hosts: readonly TeraTermHost[]): string[] {
  const mode = opts.mode ?? 'dynamic';
  const word = (id: TtlHeaderId, params?: Record<string, string | number>) => ttlHeader(id, opts.lang, params);
  const lines = [ttlComment(title), ttlComment(word('exported', { at: opts.exportedAt }))];
  for (const h of hosts.slice(0, 50)) {
    const at = mode === 'static' ? word('at', { address: h.address ?? word('noAddress') }) : '';
    lines.push(ttlComment(`  ${truncateUtf8(displayName(h), 120)} = ${h.instanceId} (${h.region})${at}`));
  }
  if (hosts.length > 50) lines.push(ttlComment(word('more', { count: hosts.length - 50 })));
  if (mode === 'static') lines.push(ttlComment(word('static')));
  else if ((opts.helper ?? 'tagssh') === 'aws-cli') lines.push(ttlComment(word('dynamicAws')));
  else lines.push(ttlComment(word('dynamicTagssh')));
  return lines;
}

function finish(lines: string[], what: string): string {
  const text = lines.join('\r\n') + '\r\n';
  assertTtlLines(text, what);
  return text;
}

/** File names for hosts' macros: the safe alias of each Name plus ".ttl". */
export function teraTermFileNames(hosts: readonly TeraTermHost[]): string[] {
  return makeAliases(hosts.map((h) => ({ instanceId: h.instanceId, name: h.name }))).map((m) => `${m.alias}.ttl`);
}

/** One macro that connects to one instance. */
export function teraTermMacro(host: TeraTermHost, opts: TeraTermOptions, fileName?: string): ExportFile {
  checkOptions(opts);
  checkHost(host);
  const title = ttlHeader('titleOne', opts.lang, { name: truncateUtf8(displayName(host), 200) });
  const lines = [...header(title, opts, [host]), ...targetAssignments(host, opts, '')];
  if ((opts.mode ?? 'dynamic') === 'static') lines.push('connect tg_cmdline', 'end');
  else lines.push(...dynamicBody(opts));
  return { fileName: fileName ?? teraTermFileNames([host])[0]!, content: finish(lines, `the macro for ${host.instanceId}`) };
}

/** One menu macro: a listbox of the given instances, then the same connect logic for the choice. */
export function teraTermMenuMacro(hosts: readonly TeraTermHost[], opts: TeraTermOptions, fileName = 'tagssh-menu.ttl'): ExportFile {
  checkOptions(opts);
  if (hosts.length === 0) throw invalid('No instances to put in the menu macro.', 'Name at least one instance, or use --all.');
  hosts.forEach(checkHost);
  // A Name shared by several instances in the menu is looked up by id, or the lookup would be ambiguous.
  const nameCount = new Map<string, number>();
  for (const h of hosts) if (h.name !== null) nameCount.set(h.name, (nameCount.get(h.name) ?? 0) + 1);
  hosts = hosts.map((h) => (h.name !== null && nameCount.get(h.name)! > 1 ? { ...h, resolveBy: 'id' as const } : h));
  const lines = [...header(ttlHeader('titleMenu', opts.lang, { count: hosts.length }), opts, hosts), `strdim tg_items ${hosts.length}`];
  hosts.forEach((h, i) => {
    const item = `${truncateUtf8(displayName(h), LABEL_BYTES)}  (${h.instanceId}, ${h.region})`;
    lines.push(`tg_items[${i}] = ${ttlString(item, `The menu entry for ${h.instanceId}`)}`);
  });
  lines.push(
    `listbox ${ttlString(ttlWord('menu', opts.lang), 'The menu title')} ${TITLE} tg_items`,
    'tg_choice = result',
    'if tg_choice < 0 then',
    '  end',
    'endif',
  );
  hosts.forEach((h, i) => {
    lines.push(`${i === 0 ? 'if' : 'elseif'} tg_choice = ${i} then`, ...targetAssignments(h, opts, '  '));
  });
  lines.push('endif');
  if ((opts.mode ?? 'dynamic') === 'static') lines.push('connect tg_cmdline', 'end');
  else lines.push(...dynamicBody(opts));
  return { fileName, content: finish(lines, 'the menu macro') };
}
