import { chmodSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportKeyPairCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { makeKey, type KeyPair } from './sshd.js';

// An EC2 key pair as a user has one: the private key at ~/.ssh/<KeyName>.pem (where `tagssh ssh`
// looks for the key of an instance launched with that KeyName) and the public half in EC2.

/** A fresh ed25519 key under `home`/gen, installed as `home`/.ssh/`name`.pem (0600). */
export function keyPairInHome(home: string, name: string): KeyPair {
  const key = makeKey(join(home, 'gen'), 'ed25519', { name });
  mkdirSync(join(home, '.ssh'), { mode: 0o700, recursive: true });
  copyFileSync(key.privatePath, join(home, '.ssh', `${name}.pem`));
  chmodSync(join(home, '.ssh', `${name}.pem`), 0o600);
  return key;
}

/** Registers the public half with EC2 (moto) as key pair `name`, for instances launched with KeyName `name`. */
export async function importKeyPair(ec2: EC2Client, name: string, key: KeyPair): Promise<void> {
  await ec2.send(new ImportKeyPairCommand({ KeyName: name, PublicKeyMaterial: readFileSync(key.publicPath) }));
}
