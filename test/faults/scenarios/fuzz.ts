import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { contract } from '../../../src/common/contract.js';
import { createDispatcher, type ResponseEnvelope } from '../../../src/common/rpc.js';
import { createAppService } from '../../../src/node/service.js';
import { createEngine } from '../../../src/node/engine.js';
import { jsonSettingsStore } from '../../../src/node/store/settings.js';
import { startMoto } from '../../lab/moto.js';
import { seedInstance } from '../../lab/seed.js';
import { startWebProcess } from '../support/webProcess.js';
import type { FaultRow, ScenarioOptions } from '../lib.js';

// Malformed and random messages: over the browser-mode WebSocket to a real `tagssh web` process,
// and through the validator the Electron IPC uses (the same dispatcher, fed structured-clone
// values as ipcMain delivers them). Every message must be answered — one left unanswered is a
// failure (a UI call that never returns), not a pass — and afterwards the backend must still
// answer a real call.

const METHODS = Object.keys(contract.calls);
// Calls that would open SSH sessions or run benchmarks are left to their own tests: here the
// point is the validator, and a random but valid open would only wait on a timeout.
const SAFE = METHODS.filter((m) => !/^(session\.open|bench\.run|bench\.start)/.test(m));

/** Text frames: broken JSON, random JSON, envelopes with random methods and params, deep nesting. */
function wsMessages(n: number): string[] {
  const arb = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.json({ maxDepth: 6 }),
    fc
      .record({
        t: fc.constantFrom('req', 'res', 'evt', 'REQ', ''),
        id: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
        method: fc.oneof(fc.constantFrom(...METHODS), fc.string()),
        params: fc.anything(),
      })
      .map((o) => JSON.stringify(o)),
    fc.record({ t: fc.constant('req'), id: fc.nat(), method: fc.constantFrom(...SAFE), params: fc.anything({ maxDepth: 3 }) }).map((o) => JSON.stringify(o)),
    fc.nat({ max: 5000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
    fc.nat({ max: 5000 }).map((d) => `{"t":"req","id":1,"method":"settings.set","params":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}`),
  );
  return fc.sample(arb, { numRuns: n, seed: 10_4 });
}

/** How long one message may take to be answered before it counts as never answered. */
const ANSWER_MS = 5000;

/** Feeds each value to `handle` in turn; one whose handling neither ends nor throws within `answerMs` counts as hung. */
export async function feedAll(handle: (v: unknown) => Promise<void>, values: unknown[], answerMs = ANSWER_MS): Promise<{ threw: number; hung: number }> {
  let threw = 0;
  let hung = 0;
  for (const v of values) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), answerMs)));
    try {
      if ((await Promise.race([handle(v), late])) === 'late') hung++;
    } catch {
      threw++;
    } finally {
      clearTimeout(timer);
    }
  }
  return { threw, hung };
}

/** Waits until `answered()` reaches `expected` or `timeoutMs` passes; resolves with how many are still unanswered. */
export async function unansweredAfter(answered: () => number, expected: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (answered() < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return Math.max(0, expected - answered());
}

export async function fuzzWebSocket(opts: ScenarioOptions): Promise<FaultRow> {
  const n = opts.quick ? 200 : 1000;
  const home = mkdtempSync(join(tmpdir(), 'tagssh-fault-fuzz-'));
  const moto = await startMoto();
  const web = await startWebProcess({ PATH: process.env.PATH ?? '', HOME: home, TAGSSH_HOME: home, ...moto.env });
  try {
    await seedInstance(moto.sdk(), { name: 'fuzz-1' });
    const client = await web.client();
    // Every frame, text or binary, request or not, gets one response envelope (an error for all
    // but well-formed calls); an engine restart would answer what it owed with errors, so it is
    // counted as the crash it is.
    let answers = 0;
    let restarts = 0;
    client.ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { t?: string; event?: string };
      if (msg.t === 'res') answers++;
      else if (msg.event === 'engine.restarted') restarts++;
    });
    const messages = wsMessages(n);
    for (const m of messages) client.ws.send(m);
    client.ws.send(Buffer.from([0xff, 0x00, 0x7b]), { binary: true });
    const sent = messages.length + 1;
    const unanswered = await unansweredAfter(() => answers, sent, 60_000);
    const answered = answers;
    const list = await client.call('instances.list', { refresh: true });
    const names = ((list.result as { instances?: Array<{ name: string }> } | undefined)?.instances ?? []).map((i) => i.name);
    // A second socket opens fine as well.
    const other = await web.client();
    const settings = await other.call('settings.get', {});
    client.close();
    other.close();
    const crashes = (web.alive() ? 0 : 1) + restarts;
    const ok = crashes === 0 && unanswered === 0 && list.ok && names.includes('fuzz-1') && settings.ok;
    opts.log(`ws fuzz: ${sent} messages, ${answered} answers, ${unanswered} never answered, alive=${web.alive()}, engine restarts=${restarts}`);
    return {
      fault: `${n} malformed/random WebSocket messages to \`tagssh web\``,
      figure: `${crashes} crashes; ${answered} of ${sent} answered (${unanswered} never); list afterwards: ${list.ok ? names.join(',') : list.error?.code}`,
      target: '0 crashes, every message answered, server still answers',
      pass: ok,
    };
  } finally {
    await web.stop();
    await moto.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function fuzzIpcValidator(opts: ScenarioOptions): Promise<FaultRow> {
  const n = opts.quick ? 200 : 1000;
  const home = mkdtempSync(join(tmpdir(), 'tagssh-fault-ipc-'));
  const saved = process.env.TAGSSH_HOME;
  process.env.TAGSSH_HOME = home;
  const service = createAppService({ engine: createEngine(), settings: jsonSettingsStore(join(home, 'settings.json')) });
  try {
    const replies: ResponseEnvelope[] = [];
    const client = service.connect(() => {});
    const dispatcher = createDispatcher(contract, client.handlers, (m) => replies.push(m));
    const values = fc.sample(
      fc.oneof(
        fc.anything(),
        fc.record({ t: fc.constant('req'), id: fc.nat(), method: fc.constantFrom(...SAFE), params: fc.anything({ maxDepth: 3 }) }),
        fc.record({ t: fc.constant('req'), id: fc.anything(), method: fc.anything(), params: fc.anything() }),
      ),
      { numRuns: n, seed: 10_5 },
    );
    const { threw, hung } = await feedAll((v) => dispatcher.handle(v), values);
    const before = replies.length;
    await dispatcher.handle({ t: 'req', id: 424242, method: 'settings.get', params: {} });
    const last = replies.slice(before).find((r) => r.id === 424242);
    client.dispose();
    opts.log(`ipc fuzz: ${n} values, ${replies.length} replies, ${threw} threw, ${hung} never answered`);
    return {
      fault: `${n} random values through the IPC validator`,
      figure: `${threw} thrown; ${hung} never answered; ${before} typed answers; settings.get afterwards ${last?.ok ? 'ok' : 'FAILED'}`,
      target: '0 crashes, every value answered, still answers',
      pass: threw === 0 && hung === 0 && before === values.length && last?.ok === true,
    };
  } finally {
    service.close();
    if (saved === undefined) delete process.env.TAGSSH_HOME;
    else process.env.TAGSSH_HOME = saved;
    rmSync(home, { recursive: true, force: true });
  }
}
