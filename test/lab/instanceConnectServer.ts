import { relayToMoto, startMotoFront } from './motoFront.js';

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
  const front = await startMotoFront((req, body, res) => {
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
    relayToMoto(upstream, req, body, res, (answer) => {
      if (input && answer.status < 300) {
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
      return answer;
    });
  });
  return {
    endpoint: front.endpoint,
    pushes,
    denied,
    async close() {
      for (const t of timers) clearTimeout(t);
      await front.close();
    },
  };
}
