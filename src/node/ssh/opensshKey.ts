import { randomBytes } from 'node:crypto';

// OpenSSH's own private key file ("openssh-key-v1", as its PROTOCOL.key describes it), unencrypted:
// the one format ssh2 parses for every key type. Written for keys that only ever live in memory
// (a PuTTY key read and decrypted, a key made for one login).

/** An SSH string: uint32 length, then the bytes. */
export function sshString(b: Buffer | string): Buffer {
  const body = typeof b === 'string' ? Buffer.from(b) : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
}

/**
 * The PEM text of one unencrypted key: `publicBlob` is the key's public blob, `fields` its
 * private fields after the algorithm's name (each already an SSH string, in OpenSSH's order).
 */
export function openSshPrivateKey(alg: string, publicBlob: Buffer, fields: Buffer[], comment: string): string {
  const check = randomBytes(4);
  let section = Buffer.concat([check, check, sshString(alg), ...fields, sshString(comment)]);
  const pad = (8 - (section.length % 8)) % 8;
  section = Buffer.concat([section, Buffer.from(Array.from({ length: pad }, (_, i) => i + 1))]);
  const n = Buffer.alloc(4);
  n.writeUInt32BE(1);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    n,
    sshString(publicBlob),
    sshString(section),
  ]);
  const b64 = body.toString('base64').replace(/.{1,70}/g, '$&\n');
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${b64}-----END OPENSSH PRIVATE KEY-----\n`;
}
