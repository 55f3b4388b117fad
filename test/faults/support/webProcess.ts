import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { TAGSSH_BIN } from '../../lab/run.js';

// `tagssh web --no-open` as its own process (so a crash is a dead process, not a failed test),
// and a WebSocket client that speaks the UI's protocol to it after trading the printed link's
// ticket for a session, as the page does.

export interface WebProcess {
  child: ChildProcess;
  base: string;
  /** A protocol client on a fresh session. */
  client(): Promise<RpcClient>;
  alive(): boolean;
  /** Resident memory of the server process, bytes (from /proc). */
  rss(): number;
  stop(): Promise<void>;
}

export interface RpcClient {
  ws: WebSocket;
  call(method: string, params: unknown, timeoutMs?: number): Promise<{ ok: boolean; result?: unknown; error?: { code: string; message: string } }>;
  /** Every event received so far, in order. */
  events: Array<{ event: string; payload: Record<string, unknown> }>;
  onEvent(cb: (event: string, payload: Record<string, unknown>) => void): void;
  close(): void;
}

export async function startWebProcess(env: NodeJS.ProcessEnv): Promise<WebProcess> {
  const child = spawn(process.execPath, [TAGSSH_BIN, 'web', '--no-open', '--port', '0'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const link = await new Promise<RegExpExecArray>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`tagssh web printed no link: ${out}`)), 20_000);
    const check = () => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)#ticket=/.exec(out);
      if (m) {
        clearTimeout(t);
        child.stdout.off('data', check);
        resolve(m);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => reject(new Error(`tagssh web exited ${code}: ${out}`)));
  });
  const base = link[1]!;
  const ticket = async (): Promise<string> => {
    const mark = out.length;
    child.stdin.write('\n');
    for (let i = 0; i < 200; i++) {
      const m = /#ticket=([A-Za-z0-9_-]+)/.exec(out.slice(mark));
      if (m) return m[1]!;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no fresh link after Enter');
  };
  return {
    child,
    base,
    async client() {
      const res = await fetch(`${base}session`, { method: 'POST', body: await ticket() });
      const { session } = (await res.json()) as { session: string };
      return rpcClient(`${base.replace('http', 'ws')}rpc?session=${session}`);
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    rss() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
      } catch {
        return 0;
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

export function rpcClient(url: string): Promise<RpcClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let seq = 1_000_000;
    const pending = new Map<number, (m: { ok: boolean; result?: unknown; error?: { code: string; message: string } }) => void>();
    const events: RpcClient['events'] = [];
    const listeners: Array<(event: string, payload: Record<string, unknown>) => void> = [];
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as { t: string; id?: number; event?: string; payload?: Record<string, unknown>; ok?: boolean };
      if (m.t === 'res' && typeof m.id === 'number') pending.get(m.id)?.(m as never);
      if (m.t === 'res' && typeof m.id === 'number') pending.delete(m.id);
      if (m.t === 'evt') {
        events.push({ event: m.event!, payload: m.payload! });
        for (const l of listeners) l(m.event!, m.payload!);
      }
    });
    ws.once('open', () =>
      resolve({
        ws,
        events,
        onEvent: (cb) => listeners.push(cb),
        call(method, params, timeoutMs = 60_000) {
          const id = seq++;
          return new Promise((res, rej) => {
            const t = setTimeout(() => rej(new Error(`${method} got no answer in ${timeoutMs} ms`)), timeoutMs);
            pending.set(id, (m) => {
              clearTimeout(t);
              res(m);
            });
            ws.send(JSON.stringify({ t: 'req', id, method, params }));
          });
        },
        close: () => ws.close(),
      }),
    );
    ws.once('error', reject);
  });
}
