import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { registerPreset, type LocalUpload } from '../../../../src/common/bench/index.js';
import { emptyParsed } from '../../../../src/common/bench/types.js';
import { MARK, wrapScript } from '../../../../src/common/bench/script.js';
import { runBench, type BenchEvent } from '../../../../src/node/bench/runner.js';
import { leftovers, startBenchLab, type BenchLab } from './benchLab.js';

// Presets own their behaviour: two presets that exist only in this test run through the real
// runner against real sshd hosts. Their duration estimate, the file they upload and their pair
// role (peer script, ready line, how the peer's address is chosen, the parameter named in hints)
// all come from their own hooks; the runner knows neither preset's name.

let lab: BenchLab;
before(async () => {
  lab = await startBenchLab(['127.0.0.25', '127.0.0.26']);
});
after(async () => {
  await lab?.stop();
});

const payloadUpload = (path: string): LocalUpload => ({
  param: 'file',
  path,
  remoteName: 'payload.txt',
  maxBytes: 64,
  problem: (size, head) => (size === 0 ? 'is empty' : size > 64 ? 'is over 64 bytes' : head && head[0] !== 0x21 ? 'does not start with "!"' : undefined),
  words: {
    noPath: { message: 'file is needed.', hint: 'Pass --param file=PATH.' },
    notPicked: 'Pick a payload file.',
    refusedHint: 'Give a file that starts with "!".',
    unreadableHint: 'Give the path of a payload file.',
  },
});

const payload = registerPreset({
  id: 'payload-test',
  title: 'Payload (test only)',
  description: 'Sends a local file into the run directory, prints it, waits a little.',
  params: z.object({
    file: z.string().default('').describe('Local file to send (none when empty).'),
    hours: z.number().min(0).default(1).describe('How long the preset says a run takes, in hours.'),
    seconds: z.number().int().min(1).max(10).default(2).describe('How long the script actually waits.'),
  }),
  confirmations: () => [],
  script: (p, ctx) =>
    wrapScript(`phase show\nprintf 'payload=%s\\n' "$(cat "$RUN_DIR/payload.txt" 2>/dev/null || echo none)"\nsleep ${p.seconds}\nphase done`, {
      runDir: ctx.runDir,
      title: 'payload test',
    }),
  parse: (stdout) => {
    const m = /^payload=(.*)$/m.exec(stdout);
    return m ? { ...emptyParsed(), facts: { payload: m[1]! } } : { ...emptyParsed(), ok: false, error: 'no payload line' };
  },
  estimateSeconds: (p) => p.hours * 3600,
  upload: (p) => (p.file ? payloadUpload(p.file) : undefined),
});

const echoPair = registerPreset({
  id: 'echo-pair-test',
  title: 'Echo pair (test only)',
  description: 'A peer that says it is ready and waits; a client that prints the address it was given.',
  params: z.object({
    via: z.enum(['auto', 'private', 'public']).default('public').describe('How the client reaches the peer (test).'),
    port: z.number().int().default(4242).describe('The port named in the hints (test).'),
    refuse: z.boolean().default(false).describe('The client reports that the peer refused it (test).'),
  }),
  pair: true,
  confirmations: () => [],
  script: (p, ctx) =>
    wrapScript(p.refuse ? `echo "unable to connect to server: Connection refused" >&2\nexit 1` : `printf 'reached=%s\\n' '${ctx.peerAddress ?? ''}'`, {
      runDir: ctx.runDir,
      title: 'echo client',
    }),
  peerScript: (_p, ctx) =>
    wrapScript(`printf '${MARK}ready\\n'\nprintf 'peer-side=%s\\n' '${ctx.peerAddress ?? ''}'\nsleep 30`, { runDir: ctx.runDir, title: 'echo peer' }),
  peerReady: /^@@tagssh:ready$/m,
  peerAddressing: (p) => ({ mode: p.via, param: 'via', port: p.port }),
  parse: (stdout, stderr, exitCode) => {
    const m = /^reached=(.*)$/m.exec(stdout);
    return m && exitCode === 0
      ? { ...emptyParsed(), facts: { reached: m[1]! } }
      : { ...emptyParsed(), ok: false, error: stderr.trim().split('\n').pop() ?? 'no reply' };
  },
});

describe('a preset defined outside the registry runs through the runner by its own hooks', () => {
  it('its estimate drives the progress, and its upload reaches the run directory', async () => {
    const file = join(lab.dir, 'payload.txt');
    writeFileSync(file, '!hello from this computer');
    const progress: Extract<BenchEvent, { type: 'progress' }>[] = [];
    const [r] = await runBench({
      preset: payload,
      params: { file, hours: 1 },
      hosts: [lab.host(0)],
      connectOptions: lab.connectOptions(),
      onEvent: (e) => e.type === 'progress' && progress.push(e),
    });
    assert.equal(r!.status, 'ok', JSON.stringify(r!.error));
    assert.equal(r!.preset, 'payload-test');
    assert.equal(r!.facts.payload, '!hello from this computer');
    assert.deepEqual(r!.params, { file, hours: 1, seconds: 2 });
    // An hour-long estimate: a few seconds in, almost all of it is still to come (the runner's
    // fallback of 10 s would say a few seconds).
    assert.ok(progress.length > 0, 'progress ticks while the script waits');
    assert.ok(progress[0]!.etaSeconds! > 3500, `ETA from the preset's estimate: ${progress[0]!.etaSeconds}`);
    assert.ok(progress[0]!.fraction < 0.01);
    assert.deepEqual(leftovers(r!.id), []);
  });

  it('without the upload its parameters ask for, nothing is sent; a file its check refuses stops the batch before any host', async () => {
    const [r] = await runBench({ preset: payload, params: { seconds: 1 }, hosts: [lab.host(0)], connectOptions: lab.connectOptions() });
    assert.equal(r!.facts.payload, 'none');
    const bad = join(lab.dir, 'bad.txt');
    writeFileSync(bad, 'no bang');
    const started: string[] = [];
    await assert.rejects(
      runBench({
        preset: payload,
        params: { file: bad },
        hosts: [lab.host(0)],
        connectOptions: lab.connectOptions(),
        onEvent: (e) => e.type === 'started' && started.push(e.runId),
      }),
      (e: Error & { hint?: string }) => e.message === `${bad} does not start with "!".` && e.hint === 'Give a file that starts with "!".',
    );
    assert.deepEqual(started, []);
    await assert.rejects(runBench({ preset: payload, params: { file: join(lab.dir, 'nope') }, hosts: [lab.host(0)] }), /no such file/);
    await assert.rejects(runBench({ preset: payload, params: { seconds: 99 }, hosts: [lab.host(0)] }), /payload-test: seconds: /);
  });

  it("a pair preset: the peer starts first, the client gets the address the preset's addressing chose, the peer is stopped", async () => {
    const [r] = await runBench({ preset: echoPair, hosts: [lab.host(0)], peer: lab.host(1), connectOptions: lab.connectOptions() });
    assert.equal(r!.status, 'ok', JSON.stringify(r!.error));
    assert.equal(r!.facts.reached, '127.0.0.26');
    assert.deepEqual(r!.peerAddress, { address: '127.0.0.26', kind: 'public', mode: 'public', reason: 'asked' });
    assert.match(r!.raw.peerStdout ?? '', /^peer-side=127\.0\.0\.26$/m);
    assert.deepEqual(leftovers(r!.id), []);
  });

  it("a pair preset's failure hints name its own parameter and port", async () => {
    const [r] = await runBench({
      preset: echoPair,
      params: { refuse: true, port: 4343 },
      hosts: [lab.host(0)],
      peer: lab.host(1),
      connectOptions: lab.connectOptions(),
    });
    assert.equal(r!.status, 'failed');
    assert.equal(
      r!.error!.message,
      'unable to connect to server: Connection refused — the client on lab-0 tried lab-1 at its public address 127.0.0.26 (via=public was asked for).',
    );
    assert.equal(
      r!.error!.hint,
      "Check that the peer's security group allows TCP port 4343 from the client's public address; in one VPC, try --param via=private.",
    );
    // A host given by address has no private address in the inventory: the preset's parameter is named.
    const [noPrivate] = await runBench({
      preset: echoPair,
      params: { via: 'private' },
      hosts: [lab.host(0)],
      peer: lab.host(1),
      connectOptions: lab.connectOptions(),
    });
    assert.equal(noPrivate!.status, 'failed');
    assert.equal(noPrivate!.error!.message, 'lab-1 has no private address in the inventory.');
    assert.equal(noPrivate!.error!.hint, 'Use its public address: --param via=public.');
    await assert.rejects(runBench({ preset: echoPair, hosts: [lab.host(0)] }), /Echo pair \(test only\) needs a peer instance\./);
  });
});
