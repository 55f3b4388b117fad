import { ec2Settings, leanEndpointFor } from './awsSettings.js';
import { credentialProvider, type AwsCredentials } from './credentials.js';
import { createEc2Client, endpointFor, resetLearnedState } from '../ec2/ec2Client.js';
import type { Ec2Port } from '../ec2/ec2Port.js';
import { agentFor } from './httpProxy.js';
import { leanEc2Port } from '../ec2/leanEc2.js';
import type { AwsScope } from './scope.js';

// One EC2 port per (adapter, profile, region) and one credential provider per profile, shared by
// every call in the process, so that credentials are resolved once however many regions are
// queried (and refreshed before they expire, see credentials.ts).
//
// Which adapter: long-running processes (the app's engine, `tagssh web`, fleet benchmark runs)
// call useSdkEc2() and get @aws-sdk/client-ec2. The CLI's per-connection commands keep the lean
// Query client, unless the configuration asks for endpoint rules only the SDK implements (FIPS,
// dual-stack, partitions beyond aws/aws-cn/aws-us-gov): then they get the SDK too.
// TAGSSH_EC2_CLIENT=sdk|lean forces one (the contract tests and the bench use it).

export type Ec2Adapter = 'sdk' | 'lean';

let preferred: Ec2Adapter | undefined;
const providers = new Map<string, () => Promise<AwsCredentials>>();
const ports = new Map<string, Promise<Ec2Port>>();

/** Long-running processes: use the AWS SDK for every EC2 call from now on. */
export function useSdkEc2(): void {
  preferred = 'sdk';
}

export function ec2Adapter(): Ec2Adapter {
  const forced = process.env.TAGSSH_EC2_CLIENT;
  if (forced === 'sdk' || forced === 'lean') return forced;
  return preferred ?? 'lean';
}

export function credentialsFor(profile: string | undefined): () => Promise<AwsCredentials> {
  const key = profile ?? '';
  let p = providers.get(key);
  if (!p) {
    p = credentialProvider(profile === undefined ? {} : { profile });
    providers.set(key, p);
  }
  return p;
}

export function ec2For(scope: AwsScope, region: string): Promise<Ec2Port> {
  const adapter = ec2Adapter();
  const key = `${adapter}\n${scope.profile ?? ''}\n${region}`;
  let port = ports.get(key);
  if (!port) {
    port = createPort(adapter, scope.profile, region);
    port.catch(() => ports.delete(key));
    ports.set(key, port);
  }
  return port;
}

async function createPort(adapter: Ec2Adapter, profile: string | undefined, region: string): Promise<Ec2Port> {
  const credentials = credentialsFor(profile);
  if (adapter === 'lean') {
    const s = await ec2Settings(profile);
    const sdkOnly = s.useFips || s.useDualStack || (!s.endpointUrl && !leanEndpointFor(region));
    if (!sdkOnly) {
      // Explicit either way, so ignore_configured_endpoint_urls also hides AWS_ENDPOINT_URL_EC2 here.
      const endpoint = endpointFor(region, s.endpointUrl ?? leanEndpointFor(region));
      const agent = await agentFor(endpoint, s.caBundle);
      return leanEc2Port(
        createEc2Client({
          region,
          credentials,
          endpoint: endpoint.href,
          ...(profile !== undefined ? { profile } : {}),
          maxAttempts: s.maxAttempts,
          retryMode: s.retryMode,
          ...(agent ? { agent } : {}),
        }),
      );
    }
  }
  const { sdkEc2Port } = await import('../ec2/sdkEc2.js');
  return sdkEc2Port({ region, credentials, ...(profile !== undefined ? { profile } : {}) });
}

/** Forgets memoised clients, credentials and learned clock skew (between tests, or to pick up changed settings). */
export function resetClients(): void {
  providers.clear();
  ports.clear();
  resetLearnedState();
}
