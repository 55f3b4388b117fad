// What the importers find in Tera Term macros, batch and shell files, TERATERM.INI, Tera Term's
// ssh_known_hosts and ~/.ssh/config: hosts to connect to, how (user, port, key, auth), and the
// aws CLI look-ups that found their addresses. Pure data; the node side maps it onto EC2.
// Notes carry codes and parameters, not sentences: each face words them in its own language.

/** Where something was found: a file (as the user named it, relative to what was imported) and a 1-based line. */
export interface SourceRef {
  file: string;
  line: number;
}

/** A part of a value the importer cannot know: typed at run time, read from a file, an environment variable… */
export interface Unknown {
  /** What supplies it: 'inputbox', 'passwordbox', 'filereadln', '%IP%', '$IP', 'param2', 'getenv USERPROFILE'… */
  from: string;
  at: SourceRef;
  /** The aws CLI look-up whose answer this is (a batch `for /f … in ('aws ec2 describe-instances …')`, a file it wrote). */
  lookup?: AwsLookup;
  /** The value is a secret (a password box, getpassword). */
  secret?: boolean;
  /** An environment variable: its name (USERPROFILE, HOME…), so a key path can be found here. */
  env?: string;
}

/** A value: literal text and unknown parts, in order. */
export type Part = string | Unknown;
export type Value = Part[];

/** What `--query` picks out of DescribeInstances. */
export type LookupField = 'public' | 'private' | 'dns' | 'id' | 'unknown';

/** An `aws ec2 describe-instances` (or `ssm start-session`, `ec2-instance-connect`) call. */
export interface AwsLookup {
  at: SourceRef;
  /** tag:Name values of --filters (any of them matches). */
  names: string[];
  /** --instance-ids (or ssm --target, ec2-instance-connect --instance-id). */
  instanceIds: string[];
  /** Other filters as written (Name=value…), kept to report, not applied. */
  otherFilters: string[];
  region?: string;
  profile?: string;
  query?: string;
  field: LookupField;
  /** A part of the filter could not be known (a variable the file never sets). */
  unresolved?: string;
}

export type AuthKind = 'publickey' | 'password' | 'challenge' | 'pageant';

/** How the machine is named where it was found. */
export type HostTarget =
  | { kind: 'address'; address: string }
  /** An EC2 DNS name (public or private); `ip` decoded from it when it has the ec2-A-B-C-D / ip-A-B-C-D shape. */
  | { kind: 'ec2dns'; host: string; ip: string; region?: string; private: boolean }
  | { kind: 'instance'; id: string }
  /** The address an aws look-up printed, named by its Name filter. */
  | { kind: 'lookup'; lookup: AwsLookup }
  /** Any other host name (a company DNS name): not something EC2 can be asked about. */
  | { kind: 'host'; host: string }
  | { kind: 'unknown'; from: Unknown[] };

export type FoundVia = 'ttl' | 'ttermpro' | 'ssh' | 'ssh-config' | 'teraterm-ini';

export interface FoundHost {
  at: SourceRef;
  via: FoundVia;
  target: HostTarget;
  port?: number;
  user?: string;
  /** The key file path as written (a Windows path in a macro); unknown parts kept as `{NAME}` markers. */
  keyFile?: string;
  /** Environment variables the key path starts from (USERPROFILE, HOME…), for finding the file here. */
  keyFileEnv?: string;
  auth?: AuthKind;
  /** A password was written into the source (/passwd=, ssh://user:pw@, a sendln after a password prompt). Never imported. */
  passwordFound: boolean;
  /** Where the user, key, auth or port came from when not the connect line itself (TERATERM.INI defaults). */
  defaults?: Array<'user' | 'keyFile' | 'auth' | 'port'>;
  /** Not an SSH connection (telnet, /nossh, serial, a named pipe, a replay): reported, never mapped. */
  notSsh?: 'telnet' | 'serial' | 'pipe' | 'replay' | 'cygwin';
  /** The ssh config Host alias. */
  alias?: string;
}

/** A line of Tera Term's (OpenSSH-format) known_hosts. */
export interface KnownHostLine {
  at: SourceRef;
  /** The host field as written: comma list, [host]:port, patterns, or |1|salt|hash. */
  hosts: string;
  keyType: string;
  /** The key blob, base64. */
  key: string;
}

type NoteCode =
  /** An include/Include/call names a file that was not among those read. */
  | 'include-missing'
  /** include nesting past Tera Term's 9 levels, or a loop. */
  | 'include-too-deep'
  /** A line the importer could not read (its text is in `detail`). */
  | 'syntax'
  /** The macro explores too many paths or steps; the rest was not looked at. */
  | 'budget'
  /** A file was read in this encoding (detail: shift_jis, utf-8-bom, utf-16le…). */
  | 'encoding'
  /** A file kind the importer does not read (skipped). */
  | 'skipped-file'
  /** An ssh config block written by TagSSH itself (export ssh-config). */
  | 'tagssh-block'
  /** An SSH1 (RSA1) known_hosts line: TagSSH speaks SSH2 only. */
  | 'ssh1-key'
  /** A known_hosts line that is not a key (a @cert-authority or @revoked marker, a broken line). */
  | 'known-hosts-skipped'
  /** A password found (and left out): /passwd=, a URL's password, a sendln after a password prompt. */
  | 'password-found'
  /** A password read at run time from getpassword's file: never imported. */
  | 'password-file';

export interface Note {
  code: NoteCode;
  at: SourceRef;
  detail?: string;
}

/** What scanning a set of files found. */
export interface ScanResult {
  hosts: FoundHost[];
  knownHosts: KnownHostLine[];
  notes: Note[];
  /** Each file read, its kind and encoding. */
  files: Array<{ file: string; kind: SourceKind; encoding: string }>;
}

export type SourceKind = 'ttl' | 'batch' | 'shell' | 'teraterm-ini' | 'known-hosts' | 'ssh-config';

/** The text of a value, or null when any part of it is unknown. */
export function knownText(v: Value): string | null {
  let s = '';
  for (const p of v) {
    if (typeof p !== 'string') return null;
    s += p;
  }
  return s;
}

/** The unknown parts of a value. */
export function unknownsOf(v: Value): Unknown[] {
  return v.filter((p): p is Unknown => typeof p !== 'string');
}

/** Joins parts, merging neighbouring text. */
export function joinValues(...vs: Value[]): Value {
  const out: Value = [];
  for (const v of vs)
    for (const p of v) {
      const last = out[out.length - 1];
      if (typeof p === 'string' && typeof last === 'string') out[out.length - 1] = last + p;
      else if (p !== '') out.push(p);
    }
  return out;
}
