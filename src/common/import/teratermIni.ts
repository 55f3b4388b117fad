import type { AuthKind, SourceRef } from './types.js';

// TERATERM.INI, read as Windows' GetPrivateProfileString reads it (sections and keys are
// case-insensitive; a line starting with `;` is a comment; a `;` inside a value is kept, which is
// how KnownHostsFiles lists several files). What matters to an import: TTSSH's defaults for a
// connection that does not say (DefaultUserName, DefaultAuthMethod, DefaultRSAPrivateKeyFile,
// Enabled), the TCP port, the known_hosts files, and the host history in [Hosts].

export interface TeraTermIni {
  file: string;
  /** [TTSSH] Enabled: a host without /ssh or /nossh connects over SSH. */
  ssh: boolean;
  tcpPort?: number;
  defaultUser?: string;
  defaultAuth?: AuthKind;
  defaultKeyFile?: string;
  /** [TTSSH] KnownHostsFiles (default ssh_known_hosts), relative to the INI's folder. */
  knownHostsFiles: string[];
  /** [Hosts] HostN=command line, in order. */
  hosts: Array<{ at: SourceRef; line: string }>;
  /** [Tera Term] log settings (LogDefaultName, LogDefaultPath, LogTimestamp), reported to the user. */
  log: { defaultName?: string; defaultPath?: string; timestamps: boolean };
}

/** DefaultAuthMethod numbers (ttssh2/ttxssh/ssh.h SSHAuthMethod). */
const AUTH_METHODS: Record<string, AuthKind> = { '2': 'publickey', '3': 'password', '5': 'challenge', '16': 'pageant' };

export function parseTeraTermIni(file: string, text: string): TeraTermIni {
  const sections = new Map<string, Map<string, { value: string; line: number }>>();
  let current: Map<string, { value: string; line: number }> | undefined;
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith(';')) return;
    const sec = /^\[([^\]]+)\]$/.exec(line);
    if (sec) {
      const name = sec[1]!.trim().toLowerCase();
      current = sections.get(name) ?? new Map();
      sections.set(name, current);
      return;
    }
    const eq = line.indexOf('=');
    if (eq <= 0 || !current) return;
    const key = line.slice(0, eq).trim().toLowerCase();
    // The first occurrence wins, as GetPrivateProfileString returns it.
    if (!current.has(key)) current.set(key, { value: line.slice(eq + 1).trim(), line: i + 1 });
  });
  const get = (s: string, k: string) => sections.get(s)?.get(k)?.value;
  const ttssh = (k: string) => get('ttssh', k);
  const enabled = ttssh('enabled');
  const port = Number(get('tera term', 'tcpport'));
  const ini: TeraTermIni = {
    file,
    ssh: enabled === undefined ? true : /^(1|yes|y|on|true)$/i.test(enabled) || Number(enabled) > 0,
    knownHostsFiles: (ttssh('knownhostsfiles') || 'ssh_known_hosts')
      .split(';')
      .map((f) => f.trim())
      .filter(Boolean),
    hosts: [...(sections.get('hosts') ?? new Map())]
      .filter(([k]) => /^host\d+$/.test(k))
      .sort(([a], [b]) => Number(a.slice(4)) - Number(b.slice(4)))
      .map(([, v]) => ({ at: { file, line: v.line }, line: v.value })),
    log: { timestamps: /^on$/i.test(get('tera term', 'logtimestamp') ?? '') },
  };
  if (port >= 1 && port <= 65535) ini.tcpPort = port;
  const user = ttssh('defaultusername');
  if (user) ini.defaultUser = user;
  const auth = AUTH_METHODS[ttssh('defaultauthmethod') ?? ''];
  if (auth) ini.defaultAuth = auth;
  const key = ttssh('defaultrsaprivatekeyfile');
  if (key) ini.defaultKeyFile = key;
  const logName = get('tera term', 'logdefaultname');
  const logPath = get('tera term', 'logdefaultpath');
  if (logName) ini.log.defaultName = logName;
  if (logPath) ini.log.defaultPath = logPath;
  return ini;
}
