import http from 'node:http';
import type { AddressInfo } from 'node:net';

// Systems Manager Run Command as a fleet sees it, in front of moto: moto (5.2) records
// SendCommand but has no ListCommandInvocations, runs no script and reports every node as
// Success with empty output at once. This lab answers ListCommandInvocations itself — every node
// InProgress on the first poll, then the state the test gives it — and puts the output the test
// gives (captured real tool output) into GetCommandInvocation's answer. Everything else goes to
// moto unchanged. It records the actions it saw and what each SendCommand asked for. A command
// sent to InstanceIds alone reaches those nodes, as on AWS: moto adds every instance to it (its
// empty Targets filter matches all), so the lab keeps the ids the request named.

export interface NodeOutcome {
  status: 'Success' | 'Failed' | 'TimedOut' | 'Undeliverable';
  stdout: string;
  stderr?: string;
  responseCode: number;
}

export interface SsmRunCommandLab {
  endpoint: string;
  /** The outcome of each node, by instance id (nodes not named: moto's own answer). */
  outcomes: Map<string, NodeOutcome>;
  actions: string[];
  /** The InstanceIds and Targets of each SendCommand, in order. */
  sent: Array<{ InstanceIds?: string[]; Targets?: unknown[] }>;
  close(): Promise<void>;
}

interface Pending {
  commandId: string;
  instanceIds: string[];
  polls: number;
}

export async function startSsmRunCommandLab(moto: string): Promise<SsmRunCommandLab> {
  const outcomes = new Map<string, NodeOutcome>();
  const actions: string[] = [];
  const sent: SsmRunCommandLab['sent'] = [];
  const commands = new Map<string, Pending>();

  /** The request as moto gets it: same path, method, headers (the target action may be replaced) and body. */
  async function forward(req: http.IncomingMessage, body: Buffer, action?: string): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
    if (action) headers['x-amz-target'] = `AmazonSSM.${action}`;
    const res = await fetch(`${moto}${req.url ?? '/'}`, {
      method: req.method ?? 'POST',
      headers,
      ...(req.method === 'GET' ? {} : { body: new Uint8Array(body) }),
    });
    return { status: res.status, text: await res.text() };
  }

  async function instancesOf(req: http.IncomingMessage, commandId: string): Promise<string[]> {
    const known = commands.get(commandId);
    if (known) return known.instanceIds;
    const listed = await forward(req, Buffer.from(JSON.stringify({ CommandId: commandId })), 'ListCommands');
    const ids: string[] = (JSON.parse(listed.text) as { Commands?: Array<{ InstanceIds?: string[] }> }).Commands?.[0]?.InstanceIds ?? [];
    commands.set(commandId, { commandId, instanceIds: ids, polls: 0 });
    return ids;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = String(req.headers['x-amz-target'] ?? '');
      const action = target.replace(/^AmazonSSM\./, '');
      actions.push(action);
      const reply = (status: number, text: string) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(text);
      };
      (async () => {
        if (action === 'ListCommandInvocations') {
          const { CommandId } = JSON.parse(body.toString('utf8')) as { CommandId: string };
          const ids = await instancesOf(req, CommandId);
          const pending = commands.get(CommandId)!;
          pending.polls++;
          const CommandInvocations = ids.map((InstanceId) => ({
            CommandId,
            InstanceId,
            Status: pending.polls === 1 ? 'InProgress' : (outcomes.get(InstanceId)?.status ?? 'Success'),
          }));
          return reply(200, JSON.stringify({ CommandInvocations }));
        }
        const answer = await forward(req, body);
        if (action === 'SendCommand' && answer.status === 200) {
          const asked = JSON.parse(body.toString('utf8')) as { InstanceIds?: string[]; Targets?: unknown[] };
          sent.push({ ...(asked.InstanceIds ? { InstanceIds: asked.InstanceIds } : {}), ...(asked.Targets ? { Targets: asked.Targets } : {}) });
          const doc = JSON.parse(answer.text) as { Command?: { CommandId: string; InstanceIds?: string[] } };
          if (asked.InstanceIds && !asked.Targets?.length && doc.Command) {
            doc.Command.InstanceIds = asked.InstanceIds;
            commands.set(doc.Command.CommandId, { commandId: doc.Command.CommandId, instanceIds: asked.InstanceIds, polls: 0 });
          }
          return reply(200, JSON.stringify(doc));
        }
        if (action === 'ListCommands' && answer.status === 200) {
          // Until every node has been reported final once, the command is still running.
          const doc = JSON.parse(answer.text) as { Commands?: Array<{ CommandId: string; Status: string }> };
          for (const c of doc.Commands ?? []) if ((commands.get(c.CommandId)?.polls ?? 0) < 2) c.Status = 'InProgress';
          return reply(200, JSON.stringify(doc));
        }
        if (action === 'GetCommandInvocation' && answer.status === 200) {
          const doc = JSON.parse(answer.text) as Record<string, unknown>;
          const o = outcomes.get(String(doc.InstanceId));
          if (o)
            Object.assign(doc, {
              Status: o.status,
              StatusDetails: o.status,
              StandardOutputContent: o.stdout,
              StandardErrorContent: o.stderr ?? '',
              ResponseCode: o.responseCode,
            });
          return reply(200, JSON.stringify(doc));
        }
        reply(answer.status, answer.text);
      })().catch((e: unknown) => reply(500, JSON.stringify({ __type: 'InternalServerError', message: String(e) })));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    outcomes,
    actions,
    sent,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
