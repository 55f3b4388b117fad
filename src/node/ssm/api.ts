import type { SSMClient } from '@aws-sdk/client-ssm';
import { AppError } from '../../common/errors.js';
import type { Agent } from 'node:http';
import { checkedEndpoint, ec2Settings } from '../aws/config/awsSettings.js';
import { credentialsFor } from '../aws/config/clients.js';
import { agentFor } from '../aws/config/httpProxy.js';
import { cjsExports } from '../aws/ec2/interop.js';
import { sdkLogger } from '../aws/config/sdkLogger.js';

// The Systems Manager API calls behind an SSM session: is the instance a managed node, start a
// session (port forwarding or a plain shell), end it. Failures are worded in one line naming the
// missing piece. The endpoint comes from AWS_ENDPOINT_URL_SSM (or AWS_ENDPOINT_URL), checked
// like the EC2 one: plain http only to this machine.

export interface SsmScope {
  instanceId: string;
  region: string;
  profile?: string;
}

interface StartedSession {
  sessionId: string;
  streamUrl: string;
  token: string;
}

const clients = new Map<string, Promise<SSMClient>>();

function configuredEndpoint(env: NodeJS.ProcessEnv = process.env): URL | undefined {
  const ignore = env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.trim().toLowerCase() === 'true';
  const raw = ignore ? undefined : (env.AWS_ENDPOINT_URL_SSM ?? env.AWS_ENDPOINT_URL);
  return raw ? checkedEndpoint(raw) : undefined;
}

function ssmClient(region: string, profile?: string): Promise<SSMClient> {
  const key = `${profile ?? ''}\n${region}`;
  let c = clients.get(key);
  if (!c) {
    c = (async () => {
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      const { SSMClient } = cjsExports(await import('@aws-sdk/client-ssm'));
      const endpoint = configuredEndpoint();
      const agent = await agentFor(endpoint ?? new URL(`https://ssm.${region}.amazonaws.com`), (await ec2Settings(profile)).caBundle);
      return new SSMClient({
        region,
        ...(profile !== undefined ? { profile } : {}),
        ...(endpoint ? { endpoint: endpoint.href } : {}),
        credentials: credentialsFor(profile),
        logger: sdkLogger,
        requestHandler: { requestTimeout: 30_000, ...(agent ? { httpAgent: agent, httpsAgent: agent as never } : {}) },
      });
    })();
    c.catch(() => clients.delete(key));
    clients.set(key, c);
  }
  return c;
}

/**
 * The agent for the session's WebSocket: through HTTPS_PROXY (CONNECT) for wss://, trusting the
 * CA bundle (AWS_CA_BUNDLE / ca_bundle) — the same network path as the API calls.
 */
export async function streamAgent(streamUrl: string, profile?: string): Promise<Agent | undefined> {
  const url = new URL(streamUrl);
  url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  return agentFor(url, (await ec2Settings(profile)).caBundle);
}

/** Forgets memoised clients (between tests). */
export function resetSsmClients(): void {
  for (const c of clients.values())
    void c.then(
      (x) => x.destroy(),
      () => {},
    );
  clients.clear();
}

function notManaged(id: string): AppError {
  return new AppError(
    'CONNECT_FAILED',
    `${id} is not an SSM managed node: its SSM agent is not running or not registered (no instance profile with AmazonSSMManagedInstanceCore?).`,
    'Attach an instance profile with the AmazonSSMManagedInstanceCore policy and check the instance in Systems Manager → Fleet Manager, or use another transport.',
  );
}

/** One line for a failed SSM call. */
export function ssmAppError(e: unknown, o: SsmScope, action: string): AppError {
  if (e instanceof AppError) return e;
  const err = e as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const name = err.name ?? '';
  if (name === 'AccessDeniedException' || name === 'AccessDenied' || err.$metadata?.httpStatusCode === 403) {
    return new AppError(
      'ACCESS_DENIED',
      `Your AWS identity lacks ssm:${action} on ${o.instanceId} (AccessDenied).`,
      `Grant ssm:${action} for this instance (and ssm:TerminateSession for your own sessions) in IAM, or use another transport.`,
    );
  }
  if (name === 'TargetNotConnected' || name === 'InvalidInstanceId') return notManaged(o.instanceId);
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|socket hang up|fetch failed/i.test(`${err.code ?? ''} ${err.message ?? ''}`)) {
    return new AppError(
      'NETWORK',
      `Could not reach Systems Manager in ${o.region}: ${err.message ?? name}`,
      'Check the network, proxy (HTTPS_PROXY) and AWS_ENDPOINT_URL_SSM.',
    );
  }
  if (name === 'UnrecognizedClientException' || name === 'InvalidClientTokenId' || name === 'ExpiredTokenException') {
    return new AppError(
      'CREDENTIALS_EXPIRED',
      `AWS rejected the credentials for Systems Manager (${name}).`,
      'Refresh your credentials (aws sso login, or new keys) and try again.',
    );
  }
  return new AppError('AWS_API', `Systems Manager ${action} failed for ${o.instanceId}: ${err.message ?? name}`);
}

/** True when Systems Manager lists the instance as a managed node whose agent is online. */
export async function isManagedNode(o: SsmScope): Promise<boolean> {
  const client = await ssmClient(o.region, o.profile);
  const { DescribeInstanceInformationCommand } = cjsExports(await import('@aws-sdk/client-ssm'));
  try {
    const out = await client.send(new DescribeInstanceInformationCommand({ Filters: [{ Key: 'InstanceIds', Values: [o.instanceId] }] }));
    return (out.InstanceInformationList ?? []).some((i) => i.InstanceId === o.instanceId && (i.PingStatus ?? 'Online') === 'Online');
  } catch (e) {
    throw ssmAppError(e, o, 'DescribeInstanceInformation');
  }
}

/** Starts a session: port forwarding to `port` on the instance, or (port undefined) a plain shell. */
export async function startSession(o: SsmScope & { port?: number }): Promise<StartedSession> {
  const client = await ssmClient(o.region, o.profile);
  const { StartSessionCommand } = cjsExports(await import('@aws-sdk/client-ssm'));
  const input =
    o.port === undefined
      ? { Target: o.instanceId }
      : { Target: o.instanceId, DocumentName: 'AWS-StartSSHSession', Parameters: { portNumber: [String(o.port)] } };
  let out;
  try {
    out = await client.send(new StartSessionCommand(input));
  } catch (e) {
    throw ssmAppError(e, o, 'StartSession');
  }
  if (!out.SessionId || !out.StreamUrl || !out.TokenValue)
    throw new AppError('AWS_API', `Systems Manager started no usable session for ${o.instanceId} (no stream URL or token).`);
  return { sessionId: out.SessionId, streamUrl: out.StreamUrl, token: out.TokenValue };
}

/** Ends a session on the service side (best effort: the data channel is already closed). */
export async function terminateSession(o: SsmScope, sessionId: string): Promise<void> {
  try {
    const client = await ssmClient(o.region, o.profile);
    const { TerminateSessionCommand } = cjsExports(await import('@aws-sdk/client-ssm'));
    await client.send(new TerminateSessionCommand({ SessionId: sessionId }));
  } catch {
    // The session times out by itself on the service side; nothing for the user to do.
  }
}
