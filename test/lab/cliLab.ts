import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { importKeyPair, keyPairInHome } from './keyPairs.js';
import { startMoto, type Moto } from './moto.js';
import { cleanupSshd, startSshd, type KeyPair, type SshdHost, type SshdOptions } from './sshd.js';

// Where a CLI test file starts: a temp home holding an EC2 key pair as a user has one
// (~/.ssh/<keyName>.pem, its public half imported into moto), moto, and a lab sshd that accepts
// the key. Each file seeds the instances it needs on `ec2`, then runs `tagssh` with `home`.

export interface CliLab {
  readonly home: string;
  readonly key: KeyPair;
  readonly moto: Moto;
  readonly host: SshdHost;
  readonly ec2: EC2Client;
  /** Stops sshd and moto and removes the home. */
  stop(): Promise<void>;
}

export async function startCliLab(opts: {
  /** The temp home's name prefix. */
  prefix: string;
  /** The EC2 key pair's name (and ~/.ssh/<keyName>.pem). */
  keyName: string;
  sshd: Omit<SshdOptions, 'authorizedKeys'>;
  /** Further keys made in the home that the sshd accepts too. */
  moreKeys?: (home: string) => KeyPair[];
}): Promise<CliLab> {
  const home = mkdtempSync(join(tmpdir(), opts.prefix));
  const key = keyPairInHome(home, opts.keyName);
  const more = opts.moreKeys?.(home) ?? [];
  const [moto, host] = await Promise.all([startMoto(), startSshd({ ...opts.sshd, authorizedKeys: [key.publicKey, ...more.map((k) => k.publicKey)] })]);
  const ec2 = moto.sdk();
  await importKeyPair(ec2, opts.keyName, key);
  return {
    home,
    key,
    moto,
    host,
    ec2,
    stop: async () => {
      await Promise.all([host.stop(), moto.stop()]);
      cleanupSshd(host);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
