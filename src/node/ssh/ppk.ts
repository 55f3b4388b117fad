import { createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { openSshPrivateKey, sshString } from './opensshKey.js';

// PuTTY's private key files (.ppk), versions 2 and 3, read into the OpenSSH format ssh2 parses.
// Layout and key derivation as PuTTY documents them (its manual's appendix "PPK file format"):
//   PuTTY-User-Key-File-<2|3>: <algorithm>      Encryption: none|aes256-cbc     Comment: …
//   Public-Lines: N + base64 public blob         [v3, encrypted: Key-Derivation: Argon2id|Argon2i|Argon2d,
//   Argon2-Memory (KiB), Argon2-Passes, Argon2-Parallelism, Argon2-Salt (hex)]
//   Private-Lines: N + base64 private blob       Private-MAC: hex
// v2: AES key = SHA-1(00000000‖pass)‖SHA-1(00000001‖pass) (first 32 bytes), IV zero; MAC HMAC-SHA-1
//     keyed with SHA-1("putty-private-key-file-mac-key"‖pass).
// v3: Argon2(pass, salt) → 80 bytes = AES key (32) ‖ IV (16) ‖ HMAC-SHA-256 key (32); unencrypted
//     files use an empty MAC key. Both MACs cover string(alg) string(enc) string(comment)
//     string(public) string(private, decrypted, padding included).
// ssh2 reads only unencrypted-or-SHA-1 v2 files of RSA/DSA keys; this reads RSA, Ed25519 and ECDSA
// in both versions. Argon2 comes from @noble/hashes (audited, no dependencies).

export class PpkError extends Error {
  constructor(
    message: string,
    readonly reason: 'format' | 'unsupported' | 'passphrase-needed' | 'wrong-passphrase',
  ) {
    super(message);
  }
}

export function isPpk(data: Buffer | string): boolean {
  return /^PuTTY-User-Key-File-\d+:/.test(data.toString('latin1', 0, 40));
}

interface PpkFile {
  version: 2 | 3;
  algorithm: string;
  encryption: string;
  comment: string;
  publicBlob: Buffer;
  privateBlob: Buffer;
  mac: Buffer;
  kdf?: { type: 'Argon2id' | 'Argon2i' | 'Argon2d'; memory: number; passes: number; parallelism: number; salt: Buffer };
}

function parseFile(text: string): PpkFile {
  const lines = text.split(/\r?\n/);
  const fields = new Map<string, string>();
  const blobs = new Map<string, Buffer>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const m = /^([A-Za-z0-9-]+): ?(.*)$/.exec(line);
    if (!m) throw new PpkError(`line ${i + 1} is not "Name: value"`, 'format');
    const [, key, value] = m as unknown as [string, string, string];
    if (key === 'Public-Lines' || key === 'Private-Lines') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 1000 || i + n >= lines.length + 1) throw new PpkError(`${key} ${value} is not a line count`, 'format');
      blobs.set(key, Buffer.from(lines.slice(i + 1, i + 1 + n).join(''), 'base64'));
      i += n;
    } else fields.set(key, value);
  }
  const header = [...fields.keys()].find((k) => k.startsWith('PuTTY-User-Key-File-'));
  const version = header ? Number(header.slice('PuTTY-User-Key-File-'.length)) : NaN;
  if (version !== 2 && version !== 3)
    throw new PpkError(`PuTTY key file version ${Number.isNaN(version) ? '?' : version} (TagSSH reads versions 2 and 3)`, 'unsupported');
  const need = (k: string) => {
    const v = fields.get(k);
    if (v === undefined) throw new PpkError(`the "${k}" line is missing`, 'format');
    return v;
  };
  const pub = blobs.get('Public-Lines');
  const priv = blobs.get('Private-Lines');
  if (!pub || !priv) throw new PpkError('the key lines are missing', 'format');
  const file: PpkFile = {
    version,
    algorithm: fields.get(header!)!,
    encryption: need('Encryption'),
    comment: need('Comment'),
    publicBlob: pub,
    privateBlob: priv,
    mac: Buffer.from(need('Private-MAC'), 'hex'),
  };
  if (file.encryption !== 'none' && file.encryption !== 'aes256-cbc') throw new PpkError(`encryption "${file.encryption}"`, 'unsupported');
  if (version === 3 && file.encryption !== 'none') {
    const type = need('Key-Derivation');
    if (type !== 'Argon2id' && type !== 'Argon2i' && type !== 'Argon2d') throw new PpkError(`key derivation "${type}"`, 'unsupported');
    const num = (k: string, max: number) => {
      const n = Number(need(k));
      if (!Number.isInteger(n) || n < 1 || n > max) throw new PpkError(`${k} ${need(k)} is out of range`, 'format');
      return n;
    };
    // Bounds keep a hostile file from asking for gigabytes or hours: PuTTY writes 8192 KiB and a few dozen passes.
    file.kdf = {
      type,
      memory: num('Argon2-Memory', 1 << 20),
      passes: num('Argon2-Passes', 1000),
      parallelism: num('Argon2-Parallelism', 64),
      salt: Buffer.from(need('Argon2-Salt'), 'hex'),
    };
  }
  return file;
}

/** Reads consecutive SSH strings (uint32 length + bytes) out of a blob. */
function readStrings(b: Buffer, count: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (let n = 0; n < count; n++) {
    if (at + 4 > b.length) throw new PpkError('a key field is cut short', 'format');
    const len = b.readUInt32BE(at);
    if (at + 4 + len > b.length) throw new PpkError('a key field is cut short', 'format');
    out.push(b.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}

async function keys(file: PpkFile, passphrase: string): Promise<{ cipherKey: Buffer; iv: Buffer; macKey: Buffer }> {
  const pass = Buffer.from(passphrase, 'utf8');
  if (file.version === 2) {
    const h = (n: number) =>
      createHash('sha1')
        .update(Buffer.from([0, 0, 0, n]))
        .update(pass)
        .digest();
    return {
      cipherKey: Buffer.concat([h(0), h(1)]).subarray(0, 32),
      iv: Buffer.alloc(16),
      macKey: createHash('sha1').update('putty-private-key-file-mac-key').update(pass).digest(),
    };
  }
  if (!file.kdf) return { cipherKey: Buffer.alloc(0), iv: Buffer.alloc(0), macKey: Buffer.alloc(0) };
  const { argon2d, argon2i, argon2id } = await import('@noble/hashes/argon2.js');
  const fn = file.kdf.type === 'Argon2id' ? argon2id : file.kdf.type === 'Argon2i' ? argon2i : argon2d;
  const out = Buffer.from(fn(pass, file.kdf.salt, { t: file.kdf.passes, m: file.kdf.memory, p: file.kdf.parallelism, dkLen: 80 }));
  return { cipherKey: out.subarray(0, 32), iv: out.subarray(32, 48), macKey: out.subarray(48, 80) };
}

/** True when the file needs a passphrase. */
export function ppkIsEncrypted(data: Buffer | string): boolean {
  return /^Encryption: aes256-cbc\r?$/m.test(data.toString());
}

/**
 * The key of a .ppk file as an unencrypted OpenSSH private key (PEM text), for ssh2 to parse. It
 * lives in memory only, like any decrypted key. Throws PpkError saying what is wrong.
 */
export async function ppkToOpenSsh(data: Buffer | string, passphrase?: string): Promise<string> {
  const file = parseFile(data.toString());
  const encrypted = file.encryption !== 'none';
  if (encrypted && !passphrase) throw new PpkError('this PuTTY key is encrypted', 'passphrase-needed');
  const k = await keys(file, encrypted ? passphrase! : '');
  let priv = file.privateBlob;
  if (encrypted) {
    if (priv.length % 16 !== 0) throw new PpkError('the private key lines are not whole AES blocks', 'format');
    const d = createDecipheriv('aes-256-cbc', k.cipherKey, k.iv).setAutoPadding(false);
    priv = Buffer.concat([d.update(priv), d.final()]);
  }
  const macInput = Buffer.concat([sshString(file.algorithm), sshString(file.encryption), sshString(file.comment), sshString(file.publicBlob), sshString(priv)]);
  const mac = createHmac(file.version === 2 ? 'sha1' : 'sha256', k.macKey)
    .update(macInput)
    .digest();
  if (mac.length !== file.mac.length || !timingSafeEqual(mac, file.mac))
    throw encrypted ? new PpkError('wrong passphrase', 'wrong-passphrase') : new PpkError('the file is damaged (its MAC does not match)', 'format');
  return openSshPrivateKey(file.algorithm, file.publicBlob, privateFields(file.algorithm, file.publicBlob, priv), file.comment);
}

/** The private section of an OpenSSH key for each algorithm, from PuTTY's public and private blobs. */
function privateFields(alg: string, pub: Buffer, priv: Buffer): Buffer[] {
  if (alg === 'ssh-rsa') {
    const [, e, n] = readStrings(pub, 3) as [Buffer, Buffer, Buffer];
    const [d, p, q, iqmp] = readStrings(priv, 4) as [Buffer, Buffer, Buffer, Buffer];
    return [n, e, d, iqmp, p, q].map(sshString);
  }
  if (alg === 'ssh-ed25519') {
    const [, pk] = readStrings(pub, 2) as [Buffer, Buffer];
    const [seed] = readStrings(priv, 1) as [Buffer];
    if (pk.length !== 32 || seed.length !== 32) throw new PpkError('the Ed25519 key has the wrong length', 'format');
    return [sshString(pk), sshString(Buffer.concat([seed, pk]))];
  }
  if (/^ecdsa-sha2-nistp(256|384|521)$/.test(alg)) {
    const [, curve, q] = readStrings(pub, 3) as [Buffer, Buffer, Buffer];
    const [d] = readStrings(priv, 1) as [Buffer];
    return [sshString(curve), sshString(q), sshString(d)];
  }
  throw new PpkError(`a ${alg} key (TagSSH reads RSA, Ed25519 and ECDSA keys)`, 'unsupported');
}
