import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { WebSocketServer, createWebSocketStream, type WebSocket } from 'ws';
import { relayToMoto, startMotoFront } from './motoFront.js';

// The server side of an EC2 Instance Connect Endpoint, as documented for `aws ec2-instance-connect
// open-tunnel`: GET /openTunnel?instanceConnectEndpointId&remotePort&privateIpAddress
// &maxTunnelDuration, SigV4-presigned for service "ec2-instance-connect" (only `host` signed,
// 60 s validity), upgraded to a WebSocket whose binary frames carry a TCP stream to
// privateIpAddress:remotePort. The signature is recomputed with @smithy/signature-v4 (the SDK's
// signer) from the credentials the lab knows; a bad signature, an expired URL, an unknown
// endpoint or an address outside its VPC get HTTP 403/400 before any upgrade. An address that
// refuses TCP (a security group that blocks the endpoint) is an upgrade that closes at once.
//
// Imports nothing from TagSSH's src/. Habits of the real endpoint the aws CLI v2 handles
// (awscli/customizations/ec2instanceconnect/websocket.py): a WebSocket close with a code other
// than 1000 carries a reason the client must show; a text message is not tunnel data.
// `route` can make a tunnel end that way ({ close } / { text }), and closeTunnels / sendText do
// it to tunnels already carrying a session. The endpoint's FipsDnsName is listed too.
//
// The same HTTP server fronts moto for EC2's DescribeInstanceConnectEndpoints, which moto does
// not implement (moto 5.2 answers it with an error): that action is answered here from the lab's
// endpoints, every other EC2 action is passed through to moto unchanged.

export interface LabEndpoint {
  id: string;
  /** Answered as FipsDnsName; none when absent. */
  fipsDnsName?: string;
  vpcId: string;
  subnetId: string;
  state?: string;
  /** Private addresses this endpoint's VPC holds (a tunnel elsewhere is refused). */
  addresses: string[];
}

export interface EiceLab {
  /** http://127.0.0.1:P — for AWS_ENDPOINT_URL_EC2 (EC2 API front) and, as ws://, the tunnel. */
  endpoint: string;
  /** Env that points TagSSH at this lab (EC2 API front + tunnel override). */
  env: Record<string, string>;
  endpoints: LabEndpoint[];
  /** Requests refused before the upgrade, with why. */
  refused: Array<{ status: number; why: string }>;
  tunnels: Array<{ endpointId: string; address: string; port: number; bytesIn: number; bytesOut: number; openedAt: number; endedByDuration?: number }>;
  /**
   * Tunnel destinations redirected (address:port → host:port, e.g. to a port the lab cannot bind),
   * or answered without TCP: closed with a code and reason, or a text message sent.
   */
  route: Map<string, LabRoute>;
  /** Closes every open tunnel with this WebSocket code and reason. */
  closeTunnels(code: number, reason: string): void;
  /** Sends a text message on every open tunnel. */
  sendText(text: string): void;
  close(): Promise<void>;
}

export type LabRoute = { host: string; port: number } | { close: { code: number; reason: string } } | { text: string };

/** The Checksum shape SignatureV4 wants, over node:crypto (the lab's own: nothing from src/). */
class LabSha256 {
  private readonly h: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.h.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
  reset(): void {}
}

function bytes(d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof d === 'string') return d;
  return d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

export interface EiceLabOptions {
  /** moto's endpoint: every EC2 action but DescribeInstanceConnectEndpoints goes there. */
  upstream: string;
  endpoints: LabEndpoint[];
  credentials?: { accessKeyId: string; secretAccessKey: string };
  region?: string;
  /**
   * How long one second of a tunnel's maxTunnelDuration lasts here (default 1000 ms): a test sets
   * it small to reach the hour's end in seconds. At the end the lab closes the tunnel's WebSocket
   * (code 1000, reason "maxTunnelDuration reached"): that the service ends the tunnel then is
   * documented; the close code and words it uses are not, and are the lab's assumption.
   */
  tunnelSecondMs?: number;
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function describeEndpointsXml(endpoints: LabEndpoint[], params: URLSearchParams, dnsOf: (e: LabEndpoint) => string): string {
  // Filters arrive as Filter.N.Name / Filter.N.Value.M.
  const filters = new Map<string, string[]>();
  for (const [k, v] of params) {
    const m = /^Filter\.(\d+)\.Name$/.exec(k);
    if (!m) continue;
    const values: string[] = [];
    for (const [k2, v2] of params) if (k2.startsWith(`Filter.${m[1]}.Value.`)) values.push(v2);
    filters.set(v, values);
  }
  const ids: string[] = [];
  for (const [k, v] of params) if (/^InstanceConnectEndpointId\.\d+$/.test(k)) ids.push(v);
  const match = (e: LabEndpoint) =>
    (!ids.length || ids.includes(e.id)) &&
    (!filters.has('vpc-id') || filters.get('vpc-id')!.includes(e.vpcId)) &&
    (!filters.has('state') || filters.get('state')!.includes(e.state ?? 'create-complete'));
  const items = endpoints
    .filter(match)
    .map(
      (e) =>
        `<item><ownerId>123456789012</ownerId><instanceConnectEndpointId>${xmlEscape(e.id)}</instanceConnectEndpointId><state>${xmlEscape(e.state ?? 'create-complete')}</state><dnsName>${xmlEscape(dnsOf(e))}</dnsName>${e.fipsDnsName ? `<fipsDnsName>${xmlEscape(e.fipsDnsName)}</fipsDnsName>` : ''}<vpcId>${xmlEscape(e.vpcId)}</vpcId><subnetId>${xmlEscape(e.subnetId)}</subnetId><preserveClientIp>false</preserveClientIp></item>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeInstanceConnectEndpointsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>lab-eice</requestId><instanceConnectEndpointSet>${items}</instanceConnectEndpointSet></DescribeInstanceConnectEndpointsResponse>`;
}

/** Parses X-Amz-Date (20240102T030405Z). */
function parseAmzDate(s: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : null;
}

/** Why a presigned tunnel request must be refused, or null when it is valid. */
async function checkPresigned(req: http.IncomingMessage, o: Required<Pick<EiceLabOptions, 'credentials' | 'region'>>): Promise<string | null> {
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const q = url.searchParams;
  const got = q.get('X-Amz-Signature');
  const date = parseAmzDate(q.get('X-Amz-Date') ?? '');
  const expires = Number(q.get('X-Amz-Expires'));
  if (!got || !date || !(expires > 0)) return 'missing SigV4 query parameters';
  if (q.get('X-Amz-SignedHeaders') !== 'host') return 'only the host header may be signed';
  if (!q.get('X-Amz-Credential')?.startsWith(`${o.credentials.accessKeyId}/`)) return 'unknown access key';
  if (Date.now() > date.getTime() + expires * 1000) return 'expired';
  if (expires > 60) return 'validity longer than 60 s';
  // Recompute with the SDK's signer, over the request as received (minus the signature).
  const query: Record<string, string> = {};
  for (const [k, v] of q) if (k !== 'X-Amz-Signature') query[k] = v;
  const signer = new SignatureV4({ service: 'ec2-instance-connect', region: o.region, sha256: LabSha256, credentials: o.credentials });
  const [hostname, port] = String(req.headers.host).split(':');
  const signed = (await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname: hostname!,
      ...(port ? { port: Number(port) } : {}),
      path: url.pathname,
      headers: { host: String(req.headers.host) },
      query,
    } as never,
    { signingDate: date, expiresIn: expires },
  )) as unknown as { query: Record<string, string> };
  return signed.query['X-Amz-Signature'] === got ? null : 'signature does not match';
}

export async function startEiceLab(opts: EiceLabOptions): Promise<EiceLab> {
  const upstream = new URL(opts.upstream);
  const creds = opts.credentials ?? { accessKeyId: 'testing', secretAccessKey: 'testing' };
  const region = opts.region ?? 'us-east-1';
  const refused: EiceLab['refused'] = [];
  const tunnels: EiceLab['tunnels'] = [];
  const route = new Map<string, LabRoute>();
  const open = new Set<WebSocket>();
  const sockets = new Set<net.Socket>();

  const front = await startMotoFront((req, body, res) => {
    const params = new URLSearchParams(body.toString('utf8'));
    if (params.get('Action') === 'DescribeInstanceConnectEndpoints') {
      const xml = describeEndpointsXml(opts.endpoints, params, (e) => `${e.id}.ec2-instance-connect-endpoint.${region}.amazonaws.com`);
      res.writeHead(200, { 'content-type': 'text/xml;charset=UTF-8', 'content-length': Buffer.byteLength(xml) });
      res.end(xml);
      return;
    }
    relayToMoto(upstream, req, body, res);
  });
  const server = front.server;
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });

  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req, socket, head) => {
    const refuse = (status: number, why: string) => {
      refused.push({ status, why });
      socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(why)}\r\nConnection: close\r\n\r\n${why}`,
      );
    };
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://lab');
      if (url.pathname !== '/openTunnel') return refuse(404, 'no such path');
      const why = await checkPresigned(req, { credentials: creds, region });
      if (why) return refuse(403, why);
      const q = url.searchParams;
      const endpoint = opts.endpoints.find((e) => e.id === q.get('instanceConnectEndpointId'));
      if (!endpoint) return refuse(400, 'unknown instanceConnectEndpointId');
      const address = q.get('privateIpAddress') ?? '';
      const port = Number(q.get('remotePort'));
      if (!endpoint.addresses.includes(address)) return refuse(400, `privateIpAddress ${address} is not in ${endpoint.vpcId}`);
      if (!(port > 0 && port < 65536)) return refuse(400, 'bad remotePort');
      const maxDuration = Number(q.get('maxTunnelDuration') ?? 3600);
      if (!(maxDuration >= 1 && maxDuration <= 3600)) return refuse(400, 'maxTunnelDuration must be 1-3600');
      wss.handleUpgrade(req, socket, head, (ws) => tunnel(ws, endpoint.id, address, port, maxDuration));
    })();
  });

  function tunnel(ws: WebSocket, endpointId: string, address: string, port: number, maxDuration: number) {
    const record: EiceLab['tunnels'][number] = { endpointId, address, port, bytesIn: 0, bytesOut: 0, openedAt: Date.now() };
    tunnels.push(record);
    open.add(ws);
    const limit = setTimeout(
      () => {
        record.endedByDuration = Date.now();
        if (ws.readyState === ws.OPEN) ws.close(1000, 'maxTunnelDuration reached');
      },
      maxDuration * (opts.tunnelSecondMs ?? 1000),
    );
    ws.once('close', () => {
      clearTimeout(limit);
      open.delete(ws);
    });
    const to = route.get(`${address}:${port}`) ?? { host: address, port };
    if ('close' in to) return ws.close(to.close.code, to.close.reason);
    if ('text' in to) return ws.send(to.text, { binary: false });
    const dest = to;
    ws.pause(); // frames wait until the TCP side is up
    const tcp = net.connect(dest);
    sockets.add(tcp);
    tcp.once('close', () => sockets.delete(tcp));
    tcp.once('error', () => {
      // The endpoint could not reach the port (a security group, nothing listening): the
      // WebSocket that was just opened closes without a byte.
      ws.resume(); // to read the client's answer to the close
      if (ws.readyState === ws.OPEN) ws.close(1011, 'connect failed');
    });
    tcp.once('connect', () => {
      const stream = createWebSocketStream(ws);
      stream.on('error', () => tcp.destroy());
      stream.on('data', (d: Buffer) => (record.bytesIn += d.length));
      tcp.on('data', (d: Buffer) => (record.bytesOut += d.length));
      stream.pipe(tcp);
      tcp.pipe(stream);
      ws.resume();
    });
    ws.once('close', () => tcp.destroy());
  }

  const { port, endpoint: self } = front;
  return {
    endpoint: self,
    env: { AWS_ENDPOINT_URL_EC2: self, AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT_ENDPOINT: `ws://127.0.0.1:${port}` },
    endpoints: opts.endpoints,
    refused,
    tunnels,
    route,
    closeTunnels(code, reason) {
      for (const ws of open) ws.close(code, reason);
    },
    sendText(text) {
      for (const ws of open) ws.send(text, { binary: false });
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      for (const s of sockets) s.destroy();
      await front.close();
    },
  };
}
