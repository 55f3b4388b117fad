import { relayToMoto, startMotoFront } from './motoFront.js';

// A pass-through HTTP proxy in front of moto that can run a hook after an EC2 action and before
// its answer reaches the client. moto gives a restarted instance a random public IP (54.x) and
// drops its Elastic IP; a hook re-associating a loopback EIP after StartInstances keeps a
// "start and wait for port 22" test on 127.0.0.0/8. It also counts requests per action.

export interface Ec2Proxy {
  endpoint: string;
  /** Runs `hook` after every successful `action` (e.g. 'StartInstances'), before replying. */
  after(action: string, hook: (body: URLSearchParams) => Promise<void>): void;
  /** Rewrites the answer body of `action` (e.g. GetConsoleOutput with a console that vouches for a lab sshd). */
  rewrite(action: string, edit: (body: string, params: URLSearchParams) => string): void;
  /** Requests seen, by action name. */
  counts: Map<string, number>;
  close(): Promise<void>;
}

export async function startEc2Proxy(upstream: string): Promise<Ec2Proxy> {
  const target = new URL(upstream);
  const hooks = new Map<string, (body: URLSearchParams) => Promise<void>>();
  const rewrites = new Map<string, (body: string, params: URLSearchParams) => string>();
  const counts = new Map<string, number>();
  const front = await startMotoFront((req, body, res) => {
    const params = new URLSearchParams(body.toString('utf8'));
    const action = params.get('Action') ?? '';
    counts.set(action, (counts.get(action) ?? 0) + 1);
    relayToMoto(target, req, body, res, async (answer) => {
      if (answer.status >= 300) return answer;
      await hooks.get(action)?.(params);
      const edit = rewrites.get(action);
      return edit ? { ...answer, body: Buffer.from(edit(answer.body.toString('utf8'), params)) } : answer;
    });
  });
  return {
    endpoint: front.endpoint,
    after(action, hook) {
      hooks.set(action, hook);
    },
    rewrite(action, edit) {
      rewrites.set(action, edit);
    },
    counts,
    close: front.close,
  };
}
