import type { ParsedKey } from 'ssh2';
import { AppError } from '../../common/errors.js';
import { sendSshPublicKey } from '../aws/instances/instanceConnect.js';
import { freshEd25519Key } from '../ssh/freshKey.js';

// EC2 Instance Connect keys: a fresh ed25519 key pair made in memory for one login, its public
// half pushed with SendSSHPublicKey (the instance accepts it for 60 seconds), the private half
// handed to ssh2 and dropped with the connection. Nothing is written to disk.

interface InstanceConnectPush {
  instanceId: string;
  region: string;
  az?: string | null;
  profile?: string;
  user: string;
}

export async function pushFreshKey(o: InstanceConnectPush): Promise<ParsedKey> {
  const fresh = freshEd25519Key('tagssh-ec2-instance-connect');
  if (!fresh) throw new AppError('INTERNAL', 'Could not make a key for EC2 Instance Connect.');
  await sendSshPublicKey({
    instance: { id: o.instanceId, region: o.region, az: o.az ?? null },
    user: o.user,
    publicKey: fresh.publicKey,
    ...(o.profile !== undefined ? { profile: o.profile } : {}),
  });
  return fresh.key;
}
