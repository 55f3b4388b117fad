import type { Agent } from 'node:http';
import { Duplex } from 'node:stream';
import WebSocket from 'ws';
import type { Instance } from '../../common/model/instance.js';
import { AppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';
import { isLoopbackHost } from '../../common/vocab.js';
import { label } from '../aws/instances/lifecycle.js';
import { credentialsFor } from '../aws/config/clients.js';
import { ec2Settings } from '../aws/config/awsSettings.js';
import { agentFor } from '../aws/config/httpProxy.js';
import { findInstanceConnectEndpoint, type InstanceConnectEndpoint } from '../aws/instances/instanceConnect.js';
import { noEndpointError } from './missing.js';
import { presignUrl } from './presign.js';
import { EICE_MAX_TUNNEL_SECONDS } from './limits.js';

// EC2 Instance Connect Endpoint: a SigV4-presigned WebSocket to the endpoint of the instance's
// VPC, which opens TCP to the instance's private address; the WebSocket's binary frames carry the
// bytes both ways. What the aws CLI v2's `ec2-instance-connect open-tunnel` does
// (awscli/customizations/ec2instanceconnect/{opentunnel,eicesigner,eicefetcher,websocket}.py,
// branch v2 at 73fb33bb), as a Duplex that ssh2 (or `tagssh proxy`) runs over:
//  - the address is the private IPv4, else the instance's IPv6 address;
//  - with FIPS endpoints asked for (AWS_USE_FIPS_ENDPOINT / use_fips_endpoint), the endpoint's
//    FipsDnsName, and an error when it has none;
//  - a close with a code other than 1000 is an error carrying the endpoint's reason; a text
//    message is an error (the CLI drops its words; TagSSH shows them, escaped).
//
// AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT_ENDPOINT (e.g. ws://127.0.0.1:9000) replaces
// wss://<endpoint DnsName> — for test servers; the request is signed for that host. Plain ws://
// only to this machine: the presigned URL carries the session token.

export const EICE_ENDPOINT_ENV = 'AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT_ENDPOINT';
/** The signed URL's validity, as the aws CLI signs it. */
const PRESIGN_SECONDS = 60;
const DEFAULT_TIMEOUT_MS = 20_000;
/** Close codes that mean a clean end: Normal Closure, and a close frame without a code. */
const CLEAN_CLOSE = new Set([1000, 1005]);

interface EiceSocketOptions {
  instance: Instance;
  port: number;
  profile?: string;
  signal?: AbortSignal;
  /** Found already (by the transport choice); looked up when absent. */
  endpoint?: InstanceConnectEndpoint;
  timeoutMs?: number;
}

/** The address an endpoint tunnels to: the private IPv4, else the IPv6 address (an IPv6-only subnet), as the aws CLI picks it. */
export function tunnelAddress(instance: Pick<Instance, 'privateIp' | 'ipv6Ip'>): string | null {
  return instance.privateIp || instance.ipv6Ip || null;
}

/** wss://<endpoint name> (the FIPS name when asked for), or the override, checked. */
function tunnelBase(endpoint: InstanceConnectEndpoint, fips: boolean): string {
  const override = process.env[EICE_ENDPOINT_ENV];
  if (override) {
    let url: URL;
    try {
      url = new URL(override);
    } catch {
      throw new AppError(
        'INVALID_INPUT',
        `${EICE_ENDPOINT_ENV} "${override}" is not a URL.`,
        'Set it to wss://HOST (or ws://127.0.0.1:PORT for a test server), or unset it.',
      );
    }
    if (url.protocol !== 'wss:' && !(url.protocol === 'ws:' && isLoopbackHost(url.hostname)))
      throw new AppError(
        'INVALID_INPUT',
        `${EICE_ENDPOINT_ENV} "${override}" is not wss://: the presigned tunnel URL carries your session token and would cross the network unencrypted.`,
        'Use a wss:// endpoint, or ws:// only on 127.0.0.1 or localhost.',
      );
    return override.replace(/\/+$/, '');
  }
  if (!fips) return `wss://${endpoint.dnsName}`;
  if (!endpoint.fipsDnsName)
    throw new AppError(
      'NOT_FOUND',
      `EC2 Instance Connect Endpoint ${endpoint.id} has no FIPS endpoint, and FIPS endpoints are asked for (AWS_USE_FIPS_ENDPOINT or use_fips_endpoint).`,
      'Turn off use_fips_endpoint for this profile, or use an endpoint in a Region that offers FIPS.',
    );
  return `wss://${endpoint.fipsDnsName}`;
}

/** The presigned wss:// URL of a tunnel to address:port through `endpoint`. */
export async function eiceTunnelUrl(o: {
  endpoint: InstanceConnectEndpoint;
  privateIp: string;
  port: number;
  region: string;
  profile?: string;
  date?: Date;
}): Promise<string> {
  const base = tunnelBase(o.endpoint, (await ec2Settings(o.profile)).useFips);
  const query = new URLSearchParams({
    instanceConnectEndpointId: o.endpoint.id,
    remotePort: String(o.port),
    privateIpAddress: o.privateIp,
    maxTunnelDuration: String(EICE_MAX_TUNNEL_SECONDS),
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

/** The endpoint's words (a close reason, a text message): escaped, cut short. */
function endpointWords(b: Buffer | string): string {
  const s = (Buffer.isBuffer(b) ? b.toString('utf8') : b).trim();
  return escapeControls(s.length > 300 ? `${s.slice(0, 300)}…` : s);
}

/**
 * The tunnel's bytes as a Duplex over the WebSocket: binary messages in, binary messages out,
 * read backpressure by pausing the socket. A close with any code but 1000 (or no code), or a text
 * message, ends it with an error saying so.
 */
class TunnelStream extends Duplex {
  constructor(
    private readonly ws: WebSocket,
    private readonly via: string,
  ) {
    super({ allowHalfOpen: false });
    ws.on('message', (data, isBinary) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (!isBinary) {
        this.destroy(new AppError('SESSION_CLOSED', `${via} sent text instead of tunnel data: "${endpointWords(bytes)}"; the tunnel was closed.`));
        return;
      }
      if (!this.push(bytes)) ws.pause();
    });
    ws.on('close', (code, reason) => {
      if (CLEAN_CLOSE.has(code)) this.push(null);
      else this.destroy(closedError(via, code, reason));
    });
    ws.on('error', (e) => this.destroy(new AppError('NETWORK', `The tunnel through ${via} failed: ${e.message}`)));
  }

  override _read(): void {
    this.ws.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    if (this.ws.readyState !== WebSocket.OPEN) return cb(new AppError('SESSION_CLOSED', `The tunnel through ${this.via} is closed.`));
    this.ws.send(chunk, { binary: true }, (e) => cb(e ?? null));
  }

  override _final(cb: (e?: Error | null) => void): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    cb();
  }

  override _destroy(err: Error | null, cb: (e: Error | null) => void): void {
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.terminate();
    cb(err);
  }
}

function closedError(via: string, code: number, reason: Buffer): AppError {
  const words = endpointWords(reason);
  return new AppError('SESSION_CLOSED', `${via} closed the tunnel (WebSocket close code ${code}${words ? `: "${words}"` : ''}).`);
}

/** A signed tunnel request, and the words messages name it by. */
interface TunnelRequest {
  url: string;
  /** The endpoint's host (or the test server's). */
  host: string;
  agent: Agent | undefined;
  endpointId: string;
  /** "EC2 Instance Connect Endpoint eice-…". */
  via: string;
  /** The instance's address as messages show it (IPv6 in brackets). */
  shownAddress: string;
}

async function tunnelRequest(o: EiceSocketOptions): Promise<TunnelRequest> {
  const { instance } = o;
  const address = tunnelAddress(instance);
  if (!address)
    throw new AppError(
      'NOT_FOUND',
      `${label(instance)} has no private IPv4 or IPv6 address for an EC2 Instance Connect Endpoint to reach.`,
      'Check the instance in the EC2 console.',
    );
  const endpoint = o.endpoint ?? (await findInstanceConnectEndpoint(instance, o.profile));
  if (!endpoint) throw noEndpointError(instance);
  const url = await eiceTunnelUrl({
    endpoint,
    privateIp: address,
    port: o.port,
    region: instance.region,
    ...(o.profile !== undefined ? { profile: o.profile } : {}),
  });
  const target = new URL(url);
  const agent = target.protocol === 'wss:' ? await agentFor(new URL(`https://${target.host}`), (await ec2Settings(o.profile)).caBundle) : undefined;
  return {
    url,
    host: target.host,
    agent,
    endpointId: endpoint.id,
    via: `EC2 Instance Connect Endpoint ${endpoint.id}`,
    shownAddress: address.includes(':') ? `[${address}]` : address,
  };
}

function refusedError(r: TunnelRequest, instance: Instance, status: number): AppError {
  if (status === 403 || status === 401)
    return new AppError(
      'ACCESS_DENIED',
      `${r.via} refused the tunnel to ${label(instance)} (HTTP ${status}): your AWS role lacks ec2-instance-connect:OpenTunnel for it, or the request's signature or time was refused.`,
      "Ask for ec2-instance-connect:OpenTunnel on the endpoint, and check this computer's clock.",
      { permission: 'ec2-instance-connect:OpenTunnel' },
    );
  return new AppError(
    'CONNECT_FAILED',
    `${r.via} refused the tunnel to ${label(instance)} (HTTP ${status}).`,
    'Check the endpoint is available in the VPC console and try again.',
  );
}

/** The endpoint closed the tunnel before a byte came through: its TCP to the port failed. */
function notAcceptedError(r: TunnelRequest, o: EiceSocketOptions, code: number, reason: Buffer): AppError {
  const words = CLEAN_CLOSE.has(code) ? '' : endpointWords(reason);
  return new AppError(
    'CONNECT_FAILED',
    `${r.via} opened a tunnel, but ${label(o.instance)} did not accept TCP on ${r.shownAddress}:${o.port}${words ? ` (the endpoint said: "${words}", code ${code})` : ''}: its security group must allow port ${o.port} from the endpoint's security group.`,
    "Add an inbound rule for the port from the endpoint's security group, and check that the service listens on it.",
    { missing: 'security-group-rule', endpointId: r.endpointId },
  );
}

/**
 * Once the WebSocket is open: until the first byte, an end is a failure to connect; the stream
 * takes over after it.
 */
function awaitFirstByte(ws: WebSocket, r: TunnelRequest, o: EiceSocketOptions, fail: (e: AppError) => void, onFirst: (first: Buffer) => void): void {
  const early = (data: WebSocket.RawData, isBinary: boolean) => {
    ws.off('close', closedEarly);
    const first = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (!isBinary) return fail(new AppError('CONNECT_FAILED', `${r.via} sent text instead of tunnel data: "${endpointWords(first)}".`));
    onFirst(first);
  };
  const closedEarly = (code: number, reason: Buffer) => {
    ws.off('message', early);
    fail(notAcceptedError(r, o, code, reason));
  };
  ws.once('message', early);
  ws.once('close', closedEarly);
}

/**
 * Opens the tunnel and resolves once the far side has spoken (SSH servers send their banner
 * first): a tunnel the endpoint opens but closes at once means its TCP to the port failed.
 */
export async function openEiceSocket(o: EiceSocketOptions): Promise<Duplex> {
  const { instance } = o;
  const r = await tunnelRequest(o);
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  return new Promise<Duplex>((resolve, reject) => {
    if (o.signal?.aborted) return reject(new AppError('CANCELLED', `Connecting to ${label(instance)} was cancelled.`));
    const ws = new WebSocket(r.url, {
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
      skipUTF8Validation: true,
      ...(r.agent ? { agent: r.agent } : {}),
    });
    let settled = false;
    const timer = setTimeout(
      () =>
        fail(
          new AppError(
            'TIMEOUT',
            `${label(instance)} did not answer on port ${o.port} through ${r.via} within ${Math.round(timeoutMs / 1000)} s.`,
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
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      reject(e);
    }
    ws.once('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      fail(refusedError(r, instance, status));
    });
    ws.once('error', (e: Error & { code?: string }) =>
      fail(
        new AppError(
          'CONNECT_FAILED',
          `Cannot reach ${r.via} at ${r.host}: ${e.code ?? e.message}.`,
          'Check your network, proxy (HTTPS_PROXY) or VPN, then try again.',
        ),
      ),
    );
    ws.once('open', () =>
      awaitFirstByte(ws, r, o, fail, (first) => {
        done();
        ws.removeAllListeners('error');
        const stream = new TunnelStream(ws, r.via);
        if (!stream.push(first)) ws.pause();
        resolve(stream);
      }),
    );
  });
}
