import { generateKeyPairSync } from 'node:crypto';

// A fresh ed25519 public key in SSH wire format (string "ssh-ed25519", string key), as a server
// presents it: for trust-store tests that need distinct real keys without running ssh-keygen.

function sshString(b: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}

export function ed25519KeyBlob(): Buffer {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(Buffer.from(jwk.x!, 'base64url'))]);
}
