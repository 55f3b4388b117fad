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
// values as ipcMain delivers them). Afterwards the backend must still answer a real call.

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

export async function fuzzWebSocket(opts: ScenarioOptions): Promise<FaultRow> {
  const n = opts.quick ? 200 : 1000;
  const home = mkdtempSync(join(tmpdir(), 'tagssh-fault-fuzz-'));
  const moto = await startMoto();
  const web = await startWebProcess({ PATH: process.env.PATH ?? '', HOME: home, TAGSSH_HOME: home, ...moto.env });
  try {
    await seedInstance(moto.sdk(), { name: 'fuzz-1' });
    const client = await web.client();
    let answers = 0;
    client.ws.on('message', () => answers++);
    const messages = wsMessages(n);
    for (const m of messages) client.ws.send(m);
    client.ws.send(Buffer.from([0xff, 0x00, 0x7b]), { binary: true });
    // Every message is answered (or dropped by design: non-request envelopes); then a real call.
    await new Promise((r) => setTimeout(r, 1500));
    const list = await client.call('instances.list', { refresh: true });
    const names = ((list.result as { instances?: Array<{ name: string }> } | undefined)?.instances ?? []).map((i) => i.name);
    // A second socket opens fine as well.
    const other = await web.client();
    const settings = await other.call('settings.get', {});
    client.close();
    other.close();
    const ok = web.alive() && list.ok && names.includes('fuzz-1') && settings.ok;
    opts.log(`ws fuzz: ${n} messages, ${answers} answers, alive=${web.alive()}`);
    return {
      fault: `${n} malformed/random WebSocket messages to \`tagssh web\``,
      figure: `${web.alive() ? 0 : 1} crashes; ${answers} error/ok answers; list afterwards: ${list.ok ? names.join(',') : list.error?.code}`,
      target: '0 crashes, server still answers',
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
    let threw = 0;
    for (const v of values) {
      try {
        await Promise.race([dispatcher.handle(v), new Promise((r) => setTimeout(r, 5000))]);
      } catch {
        threw++;
      }
    }
    const before = replies.length;
    await dispatcher.handle({ t: 'req', id: 424242, method: 'settings.get', params: {} });
    const last = replies.slice(before).find((r) => r.id === 424242);
    client.dispose();
    opts.log(`ipc fuzz: ${n} values, ${replies.length} replies, ${threw} threw`);
    return {
      fault: `${n} random values through the IPC validator`,
      figure: `${threw} thrown; ${before} typed answers; settings.get afterwards ${last?.ok ? 'ok' : 'FAILED'}`,
      target: '0 crashes, still answers',
      pass: threw === 0 && last?.ok === true,
    };
  } finally {
    service.close();
    if (saved === undefined) delete process.env.TAGSSH_HOME;
    else process.env.TAGSSH_HOME = saved;
    rmSync(home, { recursive: true, force: true });
  }
}
