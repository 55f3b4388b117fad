import type { Agent } from 'node:http';
import { isIP } from 'node:net';
import { AppError } from '../../../common/errors.js';

// HTTPS_PROXY / HTTP_PROXY / NO_PROXY, read as the aws CLI reads them (botocore → requests):
// an https endpoint goes through HTTPS_PROXY with CONNECT, an http one through HTTP_PROXY as an
// absolute-URI request; NO_PROXY is a comma list of host suffixes ("example.com" and
// ".example.com" both cover "a.example.com"), IP addresses, CIDR blocks, optional ":port", or "*".
// Lower-case names win over upper-case ones, as in requests. The proxy URL may carry user:password;
// it is never put in a message.

export function proxyUrlFor(target: URL, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const https = target.protocol === 'https:';
  const raw = https ? (env.https_proxy ?? env.HTTPS_PROXY) : (env.http_proxy ?? env.HTTP_PROXY);
  if (!raw) return undefined;
  if (bypassed(target, env.no_proxy ?? env.NO_PROXY ?? '')) return undefined;
  // requests accepts "host:port" without a scheme and means http.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
}

export function bypassed(target: URL, noProxy: string): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    if (isIP(host)) {
      if (entry.includes('/') ? inCidr(host, entry) : entry === host) return true;
      continue;
    }
    const [name, entryPort] = splitPort(entry);
    if (entryPort && entryPort !== port) continue;
    const suffix = name.replace(/^\*?\./, '');
    if (host === suffix || host.endsWith(`.${suffix}`)) return true;
  }
  return false;
}

function splitPort(entry: string): [string, string | undefined] {
  const m = /^(.*):(\d+)$/.exec(entry);
  return m ? [m[1]!, m[2]] : [entry, undefined];
}

function inCidr(ip: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  if (isIP(ip) !== 4 || isIP(base ?? '') !== 4 || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const n = (a: string) => a.split('.').reduce((acc, o) => (acc << 8) + Number(o), 0) >>> 0;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (n(ip) & mask) === (n(base!) & mask);
}

/**
 * The agent for requests to `target`: through the configured proxy, and trusting `caBundle`
 * (AWS_CA_BUNDLE / ca_bundle, a PEM file, as the aws CLI does) for https; undefined when
 * Node's defaults do.
 */
export async function agentFor(target: URL, caBundle?: string, env: NodeJS.ProcessEnv = process.env): Promise<Agent | undefined> {
  const proxy = proxyUrlFor(target, env);
  const https = target.protocol === 'https:';
  const ca = https && caBundle ? await readCa(caBundle) : undefined;
  if (proxy && https) {
    const { HttpsProxyAgent } = await import('https-proxy-agent');
    const { checkServerIdentity } = await import('node:tls');
    type ConnectArgs = Parameters<InstanceType<typeof HttpsProxyAgent<string>>['connect']>;
    // The agent's own options reach only the proxy; the TLS session inside the tunnel takes the
    // request's, so the CA bundle goes there. The tunnel's identity check is against the
    // endpoint's own host (the agent would check an IP-address endpoint against "localhost").
    return new (class extends HttpsProxyAgent<string> {
      override connect(req: ConnectArgs[0], opts: ConnectArgs[1]) {
        const host = opts.host ?? '';
        return super.connect(req, {
          ...opts,
          ...(ca ? { ca } : {}),
          checkServerIdentity: (_name: string, cert: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity(host, cert),
        } as ConnectArgs[1]);
      }
    })(proxy, { keepAlive: true });
  }
  if (proxy) {
    const { HttpProxyAgent } = await import('http-proxy-agent');
    return new HttpProxyAgent(proxy, { keepAlive: true });
  }
  if (ca) {
    const { Agent: HttpsAgent } = await import('node:https');
    return new HttpsAgent({ keepAlive: true, ca });
  }
  return undefined;
}

async function readCa(path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(path, 'utf8');
  } catch {
    throw new AppError(
      'INVALID_INPUT',
      `The CA bundle "${path}" cannot be read.`,
      'Fix AWS_CA_BUNDLE (or ca_bundle in ~/.aws/config) to name a PEM file, or unset it.',
    );
  }
}
