import http from 'node:http';
import type { AddressInfo } from 'node:net';

// EC2 Instance Connect's SendSSHPublicKey in front of moto. moto answers the call (Success: true)
// but keeps nothing; an instance with EC2 Instance Connect in its AMI reads the pushed key for 60
// seconds (its sshd's AuthorizedKeysCommand asks the metadata service). Here the lab plays that
// part: after moto accepted a push, `deliver` hands the key to the instance's lab sshd, and takes
// it back after `ttlMs`. Instances in `denied` get the AccessDeniedException a role without
// ec2-instance-connect:SendSSHPublicKey gets.

export interface PushedKey {
  instanceId: string;
  user: string;
  publicKey: string;
  availabilityZone?: string;
}

export interface InstanceConnectLab {
  /** For AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT. */
  endpoint: string;
  pushes: PushedKey[];
  denied: Set<string>;
  close(): Promise<void>;
}

export async function startInstanceConnectLab(o: {
  upstream: string;
  deliver: (key: PushedKey) => (() => void) | void;
  ttlMs?: number;
}): Promise<InstanceConnectLab> {
  const upstream = new URL(o.upstream);
  const pushes: PushedKey[] = [];
  const denied = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = String(req.headers['x-amz-target'] ?? '');
      const input = target.endsWith('.SendSSHPublicKey')
        ? (JSON.parse(body.toString('utf8')) as { InstanceId: string; InstanceOSUser: string; SSHPublicKey: string; AvailabilityZone?: string })
        : undefined;
      if (input && denied.has(input.InstanceId)) {
        const answer = JSON.stringify({
          __type: 'AccessDeniedException',
          Message: `User is not authorized to perform: ec2-instance-connect:SendSSHPublicKey on resource: ${input.InstanceId}`,
        });
        res.writeHead(400, {
          'content-type': 'application/x-amz-json-1.1',
          'x-amzn-errortype': 'AccessDeniedException',
          'content-length': Buffer.byteLength(answer),
        });
        res.end(answer);
        return;
      }
      const up = http.request({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (ures) => {
        const out: Buffer[] = [];
        ures.on('data', (c: Buffer) => out.push(c));
        ures.on('end', () => {
          const answer = Buffer.concat(out);
          if (input && (ures.statusCode ?? 500) < 300) {
            const key: PushedKey = {
              instanceId: input.InstanceId,
              user: input.InstanceOSUser,
              publicKey: input.SSHPublicKey,
              ...(input.AvailabilityZone ? { availabilityZone: input.AvailabilityZone } : {}),
            };
            pushes.push(key);
            const takeBack = o.deliver(key);
            if (takeBack) {
              const t = setTimeout(() => {
                timers.delete(t);
                takeBack();
              }, o.ttlMs ?? 60_000);
              timers.add(t);
            }
          }
          const headers = { ...ures.headers, 'content-length': String(answer.length) };
          delete headers['transfer-encoding'];
          res.writeHead(ures.statusCode ?? 502, headers);
          res.end(answer);
        });
      });
      up.on('error', (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pushes,
    denied,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
