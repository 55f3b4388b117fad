import type { KnownHostLine, Note } from './types.js';

// Tera Term's ssh_known_hosts: OpenSSH's format (ttssh2/ttxssh/hosts.c reads and writes it):
// `host[,host…] keytype base64 [comment]`, `[host]:port` for other ports, `!` negations and
// `*`/`?` patterns; SSH1 lines (`host bits exponent modulus`) and @markers are not SSH2 keys.

export function parseKnownHosts(file: string, text: string): { lines: KnownHostLine[]; notes: Note[] } {
  const lines: KnownHostLine[] = [];
  const notes: Note[] = [];
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const at = { file, line: i + 1 };
    const [hosts, keyType, key] = line.split(/[ \t]+/);
    if (line.startsWith('@') || !hosts || !keyType) return void notes.push({ code: 'known-hosts-skipped', at });
    if (/^\d+$/.test(keyType)) return void notes.push({ code: 'ssh1-key', at });
    if (!key || !/^[A-Za-z0-9+/]+={0,3}$/.test(key) || !/^[a-z0-9@.-]+$/i.test(keyType)) return void notes.push({ code: 'known-hosts-skipped', at });
    lines.push({ at, hosts, keyType, key });
  });
  return { lines, notes };
}
