import { createHash } from 'node:crypto';

// Host-key fingerprints in the two spellings OpenSSH (and so cloud-init's console block) uses:
// "SHA256:<base64 without padding>" since OpenSSH 6.8, "MD5:aa:bb:…" (or bare hex pairs) before.

/** SHA256 fingerprint of a public-key blob (the SSH wire encoding), as `ssh-keygen -l` prints it. */
export function sha256Fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** MD5 fingerprint of a public-key blob, as `ssh-keygen -l -E md5` prints it. */
export function md5Fingerprint(keyBlob: Buffer): string {
  const hex = createHash('md5').update(keyBlob).digest('hex');
  return `MD5:${hex.match(/../g)!.join(':')}`;
}

/** The algorithm name at the start of a key blob ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", …). */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const len = keyBlob.readUInt32BE(0);
  if (len <= 0 || len > 64 || 4 + len > keyBlob.length) return 'unknown';
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

/** Normalises a fingerprint for comparison: SHA256 keeps its case-sensitive base64, MD5 is lower-cased hex. */
export function normaliseFingerprint(fp: string): string {
  const s = fp.trim();
  if (/^SHA256:/i.test(s)) return `SHA256:${s.slice(7).replace(/=+$/, '')}`;
  const md5 = s.replace(/^MD5:/i, '');
  if (/^[0-9a-f]{2}(:[0-9a-f]{2}){15}$/i.test(md5)) return `MD5:${md5.toLowerCase()}`;
  return s;
}

/** True when `fp` (either spelling) is the fingerprint of `keyBlob`. */
export function fingerprintMatches(fp: string, keyBlob: Buffer): boolean {
  const n = normaliseFingerprint(fp);
  if (n.startsWith('SHA256:')) return n === sha256Fingerprint(keyBlob);
  if (n.startsWith('MD5:')) return n === md5Fingerprint(keyBlob);
  return false;
}

/** Host-key algorithms a client may offer to make a server present a key of this type. */
export function hostKeyAlgorithmsFor(keyType: string): string[] {
  if (keyType === 'ssh-rsa') return ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
  return [keyType];
}
