import http from 'node:http';
import type { AddressInfo } from 'node:net';

// CloudFormation as a slow or failing create looks, in front of moto (whose stacks are complete
// the moment CreateStack returns): after CreateStack, DescribeStacks of a stack the test names
// reports CREATE_IN_PROGRESS for its first `inProgressPolls` answers, then `finalStatus` (moto's
// own when absent), and DescribeStackEvents leads with `failure` when given. Everything else
// goes to moto unchanged (moto does not check signatures).

export interface StackScript {
  inProgressPolls: number;
  finalStatus?: string;
  failure?: { logicalId: string; reason: string };
}

export interface CfnProgressLab {
  endpoint: string;
  scripts: Map<string, StackScript>;
  close(): Promise<void>;
}

export async function startCfnProgressLab(moto: string): Promise<CfnProgressLab> {
  const scripts = new Map<string, StackScript>();
  const created = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const form = new URLSearchParams(body.toString('utf8'));
      const action = form.get('Action') ?? '';
      const stack = form.get('StackName') ?? '';
      (async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
        const up = await fetch(`${moto}${req.url ?? '/'}`, { method: req.method ?? 'POST', headers, body: new Uint8Array(body) });
        let text = await up.text();
        const script = scripts.get(stack);
        if (script && up.ok) {
          if (action === 'CreateStack') created.set(stack, 0);
          if (action === 'DescribeStacks' && created.has(stack)) {
            const n = created.get(stack)! + 1;
            created.set(stack, n);
            const status = n <= script.inProgressPolls ? 'CREATE_IN_PROGRESS' : script.finalStatus;
            if (status) text = text.replace(/<StackStatus>[A-Z_]+<\/StackStatus>/, `<StackStatus>${status}</StackStatus>`);
          }
          if (action === 'DescribeStackEvents' && script.failure) {
            const ev = `<member><StackId>${stack}</StackId><EventId>lab-failure</EventId><StackName>${stack}</StackName><LogicalResourceId>${script.failure.logicalId}</LogicalResourceId><ResourceType>AWS::EC2::Instance</ResourceType><Timestamp>${new Date().toISOString()}</Timestamp><ResourceStatus>CREATE_FAILED</ResourceStatus><ResourceStatusReason>${script.failure.reason}</ResourceStatusReason></member>`;
            text = text.replace(/<StackEvents>/, `<StackEvents>${ev}`);
          }
        }
        res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'text/xml' });
        res.end(text);
      })().catch((e: unknown) => {
        res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, scripts, close: () => new Promise((r) => server.close(() => r())) };
}
