import { ec2For } from '../aws/config/clients.js';
import type { AwsScope } from '../aws/config/scope.js';
import { fingerprintMatches, keyTypeOf } from './fingerprint.js';

// EC2 instances print their SSH host-key fingerprints to the serial console on first boot
// (cloud-init's keys-to-console module; older AMIs did it from rc.local). GetConsoleOutput is
// authenticated by AWS, so a fingerprint found there is an out-of-band proof of the host key.
//
// The block, as cloud-init writes it (each line usually prefixed "ec2: ", sometimes by syslog
// timestamps too):
//   -----BEGIN SSH HOST KEY FINGERPRINTS-----
//   256 SHA256:Xy… root@ip-172-31-5-9 (ED25519)          (OpenSSH ≥ 6.8)
//   2048 45:4d:55:…:2b:ef  root@ip-172-31-70-225 (RSA)   (older images: MD5, bare hex)
//   -----END SSH HOST KEY FINGERPRINTS-----
//   -----BEGIN SSH HOST KEY KEYS-----
//   ssh-ed25519 AAAA… root@ip-172-31-5-9
//   -----END SSH HOST KEY KEYS-----
// Only text inside these blocks is read: a fingerprint-looking line elsewhere in the log could
// have been printed by any process on the machine.

interface ConsoleFingerprint {
  bits: number | null;
  /** "SHA256:…" or "MD5:aa:bb:…" (normalised). */
  fingerprint: string;
  /** Family in the console's own words: ED25519, RSA, ECDSA, DSA. */
  family: string;
}

interface ConsoleHostKeys {
  fingerprints: ConsoleFingerprint[];
  /** Public keys from the HOST KEY KEYS block, as wire blobs. */
  keys: Buffer[];
}

const FP_LINE = /(\d+)\s+((?:SHA256:[A-Za-z0-9+/]+=*)|(?:(?:MD5:)?[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){15}))\s+.*?\(([A-Za-z0-9-]+)\)\s*$/;
const KEY_LINE = /\b((?:ssh-(?:ed25519|rsa|dss))|(?:ecdsa-sha2-nistp(?:256|384|521)))\s+([A-Za-z0-9+/]+={0,3})(?:\s|$)/;

function blockLines(console: string, name: string): string[] | null {
  const begin = `-----BEGIN SSH HOST KEY ${name}-----`;
  const end = `-----END SSH HOST KEY ${name}-----`;
  // The last complete block wins: a reboot prints it again, and keys may have been regenerated.
  const start = console.lastIndexOf(begin);
  if (start < 0) return null;
  const stop = console.indexOf(end, start);
  if (stop < 0) return null;
  return console.slice(start + begin.length, stop).split(/\r?\n/);
}

/** Parses the console's host-key blocks; null when the console has none (nothing to compare with). */
export function parseConsoleHostKeys(consoleText: string): ConsoleHostKeys | null {
  const fpLines = blockLines(consoleText, 'FINGERPRINTS');
  const keyLines = blockLines(consoleText, 'KEYS');
  if (!fpLines && !keyLines) return null;
  const fingerprints: ConsoleFingerprint[] = [];
  for (const line of fpLines ?? []) {
    const m = FP_LINE.exec(line);
    if (!m) continue;
    const raw = m[2]!;
    const fingerprint = raw.startsWith('SHA256:') ? raw.replace(/=+$/, '') : `MD5:${raw.replace(/^MD5:/i, '').toLowerCase()}`;
    fingerprints.push({ bits: Number(m[1]), fingerprint, family: m[3]!.toUpperCase() });
  }
  const keys: Buffer[] = [];
  for (const line of keyLines ?? []) {
    const m = KEY_LINE.exec(line);
    if (!m) continue;
    const blob = Buffer.from(m[2]!, 'base64');
    if (keyTypeOf(blob) === m[1]) keys.push(blob);
  }
  if (fingerprints.length === 0 && keys.length === 0) return null;
  return { fingerprints, keys };
}

/**
 * Compares a presented host key with the console's record: true = listed, false = the console
 * lists host keys and this is not one of them, null = the console says nothing about host keys.
 */
export function matchConsole(hostKeys: ConsoleHostKeys | null, keyBlob: Buffer): boolean | null {
  if (!hostKeys) return null;
  if (hostKeys.keys.some((k) => k.equals(keyBlob))) return true;
  if (hostKeys.fingerprints.some((f) => fingerprintMatches(f.fingerprint, keyBlob))) return true;
  return false;
}

/** A source of console text for an instance; null when unavailable. Injectable for tests. */
export type ConsoleOutputSource = (instanceId: string, region: string) => Promise<string | null>;

/** The instance's console output via EC2 GetConsoleOutput (base64-decoded), or null. */
export function ec2ConsoleOutput(scope: AwsScope): ConsoleOutputSource {
  return async (instanceId, region) => {
    return (await ec2For(scope, region)).getConsoleOutput(instanceId);
  };
}
