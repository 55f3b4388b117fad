import { credentialProvider, type AwsCredentials } from './credentials.js';
import { createEc2Client, type Ec2Client } from './ec2Client.js';
import type { AwsScope } from './scope.js';

// One EC2 client per (profile, region) and one credential provider per profile, shared by every
// call in the process, so that credentials are resolved once however many regions are queried.

const providers = new Map<string, () => Promise<AwsCredentials>>();
const clients = new Map<string, Ec2Client>();

function providerFor(profile: string | undefined): () => Promise<AwsCredentials> {
  const key = profile ?? '';
  let p = providers.get(key);
  if (!p) {
    p = credentialProvider(profile === undefined ? {} : { profile });
    providers.set(key, p);
  }
  return p;
}

export function ec2ClientFor(scope: AwsScope, region: string): Ec2Client {
  const key = `${scope.profile ?? ''}\n${region}`;
  let c = clients.get(key);
  if (!c) {
    c = createEc2Client({ region, credentials: providerFor(scope.profile) });
    clients.set(key, c);
  }
  return c;
}

/** Forgets memoised clients and credentials (after `aws sso login`, or between tests). */
export function resetClients(): void {
  providers.clear();
  clients.clear();
}
