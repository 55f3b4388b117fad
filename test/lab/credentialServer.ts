import http from 'node:http';
import type { AddressInfo } from 'node:net';

// The two credential services of AWS compute, on 127.0.0.1, issuing short-lived credentials:
// the EC2 instance metadata service (IMDSv2: token, role name, role credentials) and the
// container credentials endpoint (ECS/EKS: AWS_CONTAINER_CREDENTIALS_FULL_URI). Every issued key
// is remembered with its expiry so an EC2 fault proxy can refuse expired ones.

export interface CredentialServer {
  /** For AWS_EC2_METADATA_SERVICE_ENDPOINT. */
  imdsEndpoint: string;
  /** For AWS_CONTAINER_CREDENTIALS_FULL_URI. */
  containerUri: string;
  issued: Array<{ key: string; expires: number; via: 'imds' | 'container' }>;
  valid(key: string | undefined): boolean;
  close(): Promise<void>;
}

const ROLE = 'tagssh-test-role';

export async function startCredentialServer(lifetimeSeconds: number, secret: string): Promise<CredentialServer> {
  const issued: CredentialServer['issued'] = [];
  const issue = (via: 'imds' | 'container') => {
    const key = `ASIA${via === 'imds' ? 'IMDS' : 'ECS'}${Date.now().toString(36).toUpperCase()}${Math.random().toString(36).slice(2, 6).toUpperCase()}`;
    const expires = Date.now() + lifetimeSeconds * 1000;
    issued.push({ key, expires, via });
    return {
      Code: 'Success',
      Type: 'AWS-HMAC',
      AccessKeyId: key,
      SecretAccessKey: secret,
      Token: `token-${key}`,
      Expiration: new Date(expires).toISOString(),
      LastUpdated: new Date().toISOString(),
    };
  };
  const server = http.createServer((req, res) => {
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const text = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(body);
    };
    if (req.method === 'PUT' && req.url === '/latest/api/token') return text('imds-session-token');
    if (req.url === '/latest/meta-data/iam/security-credentials/') return text(ROLE);
    if (req.url === `/latest/meta-data/iam/security-credentials/${ROLE}`) return json(issue('imds'));
    if (req.url === '/container/credentials') return json(issue('container'));
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    imdsEndpoint: base,
    containerUri: `${base}/container/credentials`,
    issued,
    valid: (key) => issued.some((i) => i.key === key && i.expires > Date.now()),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
