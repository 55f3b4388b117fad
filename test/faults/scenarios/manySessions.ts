import { readFileSync } from 'node:fs';
import { startAppLab } from '../../e2e/lab.js';
import { rpcClient } from '../support/webProcess.js';
import { seconds, until, type FaultRow, type ScenarioOptions } from '../lib.js';

// 50 terminal sessions at once from one UI (one browser-mode socket, speaking the UI's protocol)
// to a real sshd: every one must echo its own marker back, and the engine process's memory per
// session is reported.

/** Resident memory of the engine's process, bytes (from /proc: the engine runs in a process of its own). */
function engineRss(pid: number | undefined): number {
  if (pid === process.pid || pid === undefined) return process.memoryUsage().rss;
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

export async function manySessions(opts: ScenarioOptions): Promise<FaultRow> {
  const n = opts.quick ? 10 : 50;
  const lab = await startAppLab([{ name: 'echo-1', address: '127.0.0.2' }]);
  try {
    const ticket = /#ticket=(.+)$/.exec(lab.server.openLink())![1]!;
    const { session } = (await (await fetch(`${lab.server.url}session`, { method: 'POST', body: ticket })).json()) as { session: string };
    const ui = await rpcClient(`ws://127.0.0.1:${lab.server.port}/rpc?session=${session}`);
    const output = new Map<string, string>();
    ui.onEvent((event, payload) => {
      if (event !== 'session.data') return;
      const sessionId = payload.sessionId as string;
      output.set(sessionId, (output.get(sessionId) ?? '') + (payload.data as string));
      // As the UI does once it has painted: past a few unacknowledged batches the engine holds output back.
      void ui.call('session.ack', { sessionId, chars: (payload.data as string).length }).catch(() => {});
    });
    const open = (i: number, accept?: string) =>
      ui.call('session.open', { ref: 'echo-1', openId: `open-${i}`, cols: 80, rows: 24, ...(accept ? { acceptNewHostKey: accept } : {}) }, 60_000);
    // First contact: confirm the host key the way the prompt does, once.
    const first = await open(0);
    let firstId: string;
    if (!first.ok) {
      const fp = (first.error as { details?: { fingerprint?: string } }).details?.fingerprint;
      if (first.error?.code !== 'HOST_KEY_UNKNOWN' || !fp) throw new Error(`first open failed: ${JSON.stringify(first.error)}`);
      const again = await open(0, fp);
      if (!again.ok) throw new Error(`open after trusting failed: ${JSON.stringify(again.error)}`);
      firstId = (again.result as { sessionId: string }).sessionId;
    } else firstId = (first.result as { sessionId: string }).sessionId;
    // The first session settled (its shell prompted) before memory is read.
    await until(() => (/[#$]\s*$/m.test(output.get(firstId) ?? '') ? true : undefined), 20_000, 'the first session never prompted');
    const enginePid = lab.server.enginePid();
    const rssBefore = engineRss(enginePid);
    const t0 = Date.now();
    const opened = await Promise.all(Array.from({ length: n - 1 }, (_, k) => open(k + 1)));
    const failures = opened.filter((o) => !o.ok);
    const ids = [firstId, ...opened.filter((o) => o.ok).map((o) => (o.result as { sessionId: string }).sessionId)];
    const openMs = Date.now() - t0;
    await Promise.all(ids.map((id, i) => ui.call('session.write', { sessionId: id, data: `echo mark-${i}-$((6*7))\n` })));
    const echoed = await until(
      () => {
        const ok = ids.filter((id, i) => (output.get(id) ?? '').includes(`mark-${i}-42`)).length;
        return ok === ids.length ? ok : undefined;
      },
      30_000,
      'not every session echoed',
    ).catch(() => ids.filter((id, i) => (output.get(id) ?? '').includes(`mark-${i}-42`)).length);
    // A marker must appear only in its own session.
    const crossed = ids.filter((id, i) => ids.some((_, j) => j !== i && (output.get(id) ?? '').includes(`mark-${j}-42`))).length;
    const perSession = (engineRss(enginePid) - rssBefore) / Math.max(1, ids.length - 1);
    await Promise.all(ids.map((id) => ui.call('session.close', { sessionId: id })));
    ui.close();
    opts.log(
      `sessions: ${ids.length} open (${failures.length} failed) in ${openMs} ms, ${echoed} echoed, ${crossed} crossed, ${(perSession / 1024).toFixed(0)} KiB each`,
    );
    return {
      fault: `${n} concurrent sessions from one UI`,
      figure: `${echoed} of ${n} echoed, ${crossed} crossed, ${failures.length} failed opens; opened in ${seconds(openMs)}; backend memory ≈ ${(perSession / 1024).toFixed(0)} KiB/session`,
      target: 'all echo correctly; memory reported',
      pass: echoed === n && crossed === 0 && failures.length === 0,
      note: failures[0] ? `first failure: ${failures[0].error?.code} ${failures[0].error?.message}` : undefined,
    };
  } finally {
    await lab.stop();
  }
}
