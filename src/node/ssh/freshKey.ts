import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import ssh2 from 'ssh2';
import type { ParsedKey } from 'ssh2';
import { openSshPrivateKey, sshString } from './opensshKey.js';

// A key pair made in memory for one login (EC2 Instance Connect's push, the serial console's):
// never written to disk, dropped with the connection. node:crypto makes it and it is written in
// OpenSSH's format here, not by ssh2's generateKeyPairSync: ssh2 1.17 strips every leading zero
// byte of the public key's DER BIT STRING, the key's own bytes included, so one key in 256 (a
// public key starting with 0x00) came out malformed, ssh2 could not parse it and the login failed.

export interface FreshKey {
  /** For ssh2's publickey method. */
  key: ParsedKey;
  /** The private key as OpenSSH PEM text. */
  privateKey: string;
  /** "ssh-ed25519 AAAA… comment", as pushed. */
  publicKey: string;
}

type Pair = { publicKey: KeyObject; privateKey: KeyObject };

/** A fresh Ed25519 key (`pair` for a given one); undefined if ssh2 cannot parse what was written. */
export function freshEd25519Key(comment: string, pair: Pair = generateKeyPairSync('ed25519')): FreshKey | undefined {
  const pub = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const seed = Buffer.from(pair.privateKey.export({ format: 'jwk' }).d ?? '', 'base64url');
  if (pub.length !== 32 || seed.length !== 32) return undefined;
  const blob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  // OpenSSH's Ed25519 private fields: the public key, then the seed and the public key again.
  const privateKey = openSshPrivateKey('ssh-ed25519', blob, [sshString(pub), sshString(Buffer.concat([seed, pub]))], comment);
  const parsed = ssh2.utils.parseKey(privateKey);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) return undefined;
  return { key, privateKey, publicKey: `ssh-ed25519 ${blob.toString('base64')} ${comment}` };
}
