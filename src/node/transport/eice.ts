import type { Duplex } from 'node:stream';
import WebSocket, { createWebSocketStream } from 'ws';
import type { Instance } from '../../common/model/instance.js';
import { AppError } from '../../common/errors.js';
import { label } from '../aws/lifecycle.js';
import { credentialsFor } from '../aws/clients.js';
import { ec2Settings } from '../aws/awsSettings.js';
import { agentFor } from '../aws/httpProxy.js';
import { findInstanceConnectEndpoint, type InstanceConnectEndpoint } from '../aws/instanceConnect.js';
import { presignUrl } from './presign.js';

// EC2 Instance Connect Endpoint: a SigV4-presigned WebSocket to the endpoint of the instance's
// VPC, which opens TCP to the instance's private address; the WebSocket's binary frames carry the
// bytes both ways. What the aws CLI's `ec2-instance-connect open-tunnel` does, as a Duplex that
// ssh2 (or `tagssh proxy`) runs over.
//
// AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT_ENDPOINT (e.g. ws://127.0.0.1:9000) replaces
// wss://<endpoint DnsName> — for test servers; the request is signed for that host.

export const EICE_ENDPOINT_ENV = 'AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT_ENDPOINT';
/** The signed URL's validity, as the aws CLI signs it. */
const PRESIGN_SECONDS = 60;
/** The tunnel's lifetime asked for (the service's maximum). */
const MAX_TUNNEL_SECONDS = 3600;
const DEFAULT_TIMEOUT_MS = 20_000;

export interface EiceSocketOptions {
  instance: Instance;
  port: number;
  profile?: string;
  signal?: AbortSignal;
  /** Found already (by the transport choice); looked up when absent. */
  endpoint?: InstanceConnectEndpoint;
  timeoutMs?: number;
}

export function noEndpointError(instance: Pick<Instance, 'id' | 'name' | 'vpcId' | 'region'>): AppError {
  return new AppError(
    'NOT_FOUND',
    `No EC2 Instance Connect Endpoint in ${instance.vpcId ?? 'the VPC'} (${instance.region}) of ${label(instance)}.`,
    'Create one in that VPC (VPC console → Endpoints → EC2 Instance Connect Endpoint), or choose another transport.',
    { missing: 'eice-endpoint', vpcId: instance.vpcId },
  );
}

/** The presigned wss:// URL of a tunnel to privateIp:port through `endpoint`. */
export async function eiceTunnelUrl(o: {
  endpoint: InstanceConnectEndpoint;
  privateIp: string;
  port: number;
  region: string;
  profile?: string;
  date?: Date;
}): Promise<string> {
  const base = (process.env[EICE_ENDPOINT_ENV] || `wss://${o.endpoint.dnsName}`).replace(/\/+$/, '');
  const query = new URLSearchParams({
    instanceConnectEndpointId: o.endpoint.id,
    remotePort: String(o.port),
    privateIpAddress: o.privateIp,
    maxTunnelDuration: String(MAX_TUNNEL_SECONDS),
  });
  const credentials = await credentialsFor(o.profile)();
  return presignUrl({
    url: `${base}/openTunnel?${query}`,
    region: o.region,
    service: 'ec2-instance-connect',
    credentials,
    expiresSeconds: PRESIGN_SECONDS,
    ...(o.date ? { date: o.date } : {}),
  });
}

/**
 * Opens the tunnel and resolves once the far side has spoken (SSH servers send their banner
 * first): a tunnel the endpoint opens but closes at once means its TCP to the port failed.
 */
export async function openEiceSocket(o: EiceSocketOptions): Promise<Duplex> {
  const { instance } = o;
  if (!instance.privateIp)
    throw new AppError(
      'NOT_FOUND',
      `${label(instance)} has no private IP address for an EC2 Instance Connect Endpoint to reach.`,
      'Check the instance in the EC2 console.',
    );
  const endpoint = o.endpoint ?? (await findInstanceConnectEndpoint(instance, o.profile));
  if (!endpoint) throw noEndpointError(instance);
  const url = await eiceTunnelUrl({
    endpoint,
    privateIp: instance.privateIp,
    port: o.port,
    region: instance.region,
    ...(o.profile !== undefined ? { profile: o.profile } : {}),
  });
  const target = new URL(url);
  const agent = target.protocol === 'wss:' ? await agentFor(new URL(`https://${target.host}`), (await ec2Settings(o.profile)).caBundle) : undefined;
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const via = `EC2 Instance Connect Endpoint ${endpoint.id}`;

  return new Promise<Duplex>((resolve, reject) => {
    if (o.signal?.aborted) return reject(new AppError('CANCELLED', `Connecting to ${label(instance)} was cancelled.`));
    const ws = new WebSocket(url, { handshakeTimeout: timeoutMs, perMessageDeflate: false, ...(agent ? { agent } : {}) });
    let stream: Duplex | undefined;
    let settled = false;
    const timer = setTimeout(
      () =>
        fail(
          new AppError(
            'TIMEOUT',
            `${label(instance)} did not answer on port ${o.port} through ${via} within ${Math.round(timeoutMs / 1000)} s.`,
            "Check that the instance is running and its security group allows the port from the endpoint's security group.",
          ),
        ),
      timeoutMs,
    );
    const onAbort = () => fail(new AppError('CANCELLED', `Connecting to ${label(instance)} was cancelled.`));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    function done() {
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
    }
    function fail(e: AppError) {
      if (settled) return;
      done();
      ws.removeAllListeners('close');
      ws.on('error', () => {});
      stream?.destroy();
      ws.terminate();
      reject(e);
    }
    ws.once('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if (status === 403 || status === 401)
        fail(
          new AppError(
            'ACCESS_DENIED',
            `${via} refused the tunnel to ${label(instance)} (HTTP ${status}): your AWS role lacks ec2-instance-connect:OpenTunnel for it, or the request's signature or time was refused.`,
            "Ask for ec2-instance-connect:OpenTunnel on the endpoint, and check this computer's clock.",
            { permission: 'ec2-instance-connect:OpenTunnel' },
          ),
        );
      else
        fail(
          new AppError(
            'CONNECT_FAILED',
            `${via} refused the tunnel to ${label(instance)} (HTTP ${status}).`,
            'Check the endpoint is available in the VPC console and try again.',
          ),
        );
    });
    ws.once('error', (e: Error & { code?: string }) =>
      fail(
        new AppError(
          'CONNECT_FAILED',
          `Cannot reach ${via} at ${target.host}: ${e.code ?? e.message}.`,
          'Check your network, proxy (HTTPS_PROXY) or VPN, then try again.',
        ),
      ),
    );
    ws.once('open', () => {
      stream = createWebSocketStream(ws, { allowHalfOpen: false });
      stream.on('error', () => {}); // until the caller attaches its own
      ws.once('message', () => {
        if (settled) return;
        done();
        resolve(stream!);
      });
      ws.once('close', () =>
        fail(
          new AppError(
            'CONNECT_FAILED',
            `${via} opened a tunnel, but ${label(instance)} did not accept TCP on ${instance.privateIp}:${o.port}: its security group must allow port ${o.port} from the endpoint's security group.`,
            "Add an inbound rule for the port from the endpoint's security group, and check that the service listens on it.",
            { missing: 'security-group-rule', endpointId: endpoint.id },
          ),
        ),
      );
    });
  });
}
