import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import { getPreset, PRESET_IDS, registerPreset, validateParams } from '../../../../src/common/bench/index.js';
import { emptyParsed } from '../../../../src/common/bench/types.js';

// The registry entry of a preset: bind() validates the parameters once, against the preset's own
// schema, and applies them to every hook, so nothing outside the preset's file passes parameters
// of unknown shape (or asks for a preset by name).

const ctx = { runId: 'unit-run-2', runDir: '/tmp/tagssh-unit-run-2' };

describe('preset registry entries', () => {
  it('bind() fills in defaults and refuses what validateParams refuses, in the same words', () => {
    const fio = getPreset('fio');
    assert.deepEqual(fio.bind({ runtime: 5 }).params, validateParams(fio, { runtime: 5 }));
    assert.throws(
      () => fio.bind({ nope: 1 }),
      (e: Error) => e.message === 'fio has no parameter "nope".',
    );
    assert.throws(
      () => fio.bind({ runtime: 0 }),
      (e: Error & { code?: string; hint?: string }) =>
        e.code === 'INVALID_INPUT' && /^fio: runtime: /.test(e.message) && e.hint === 'See the parameters: tagssh bench presets fio',
    );
    // A registry hook takes only parameters bind() produced (or a deliberate cast): checked by the compiler.
    // @ts-expect-error -- the hook's parameter type is erased in the registry
    const unchecked = () => fio.script({ dir: '/mnt' }, ctx);
    void unchecked;
  });

  it('the estimates are the presets’ own: the durations the runner used before, for the defaults and for given values', () => {
    const est = (id: string, raw: Record<string, unknown> = {}) => getPreset(id).bind(raw).estimateSeconds();
    assert.deepEqual(
      PRESET_IDS.map((id) => [id, est(id)]),
      [
        ['sysinfo', 10],
        ['cpufreq', 10],
        ['unixbench', 1800],
        ['iperf3', 12],
        ['fio', 40],
        ['dd', 10 + 1024 / 100],
        ['smallfiles', 7],
        ['listing', 10],
        ['transfer', 10 + (500 * 65536) / 20e6 + 500 / 200],
      ],
    );
    assert.equal(est('iperf3', { duration: 60 }), 62);
    assert.equal(est('unixbench', { copies: '1,2,auto', iterations: 3 }), 8100);
    assert.equal(est('dd', { count: 4 }), 10 + 4 / 100);
  });

  it('only UnixBench with source=upload asks for a local file; only iperf3 has a peer side', () => {
    for (const id of PRESET_IDS) assert.equal(getPreset(id).bind({}).upload(), undefined, id);
    const up = getPreset('unixbench').bind({ source: 'upload', localTarball: 'ub.tar.gz' }).upload();
    assert.deepEqual(
      { param: up?.param, path: up?.path, remoteName: up?.remoteName, maxBytes: up?.maxBytes },
      { param: 'localTarball', path: 'ub.tar.gz', remoteName: 'unixbench-upload.tar.gz', maxBytes: 1024 * 1024 },
    );
    assert.equal(up?.problem(10, new Uint8Array([0x50, 0x4b])), 'is not a gzip-compressed tarball (.tar.gz)');
    assert.deepEqual(
      PRESET_IDS.filter((id) => getPreset(id).bind({}).peer),
      ['iperf3'],
    );
    assert.deepEqual(getPreset('iperf3').bind({ address: 'private', port: 5300 }).peer?.addressing, { mode: 'private', param: 'address', port: 5300 });
  });

  it('the preview is the script with a stand-in for the peer address, on both sides of a pair', () => {
    const pv = getPreset('iperf3').bind({ serverBind: true }).preview();
    assert.match(pv.script, /'iperf3' '-c' 'PEER-ADDRESS'/);
    assert.match(pv.peerScript ?? '', /iperf3 -s -1 -p 5201 -B 'PEER-ADDRESS'/);
    assert.deepEqual(Object.keys(getPreset('sysinfo').bind({}).preview()), ['script']);
  });

  it('a preset without optional hooks gets the defaults: 10 s, no cleanup, no upload, no peer, no progress', () => {
    const bare = registerPreset({
      id: 'bare-test',
      title: 'Bare (test only)',
      description: 'Only the hooks every preset must have.',
      params: z.object({ n: z.number().default(1).describe('A number (test).') }),
      confirmations: (p) => (p.n > 1 ? [{ kind: 'write', say: { id: 'createFiles', values: { count: p.n, dir: '/tmp' } } }] : []),
      script: (p) => `echo ${p.n}`,
      parse: () => emptyParsed(),
    }).bind({ n: 3 });
    assert.equal(bare.estimateSeconds(), 10);
    assert.equal(bare.cleanup(ctx), '');
    assert.equal(bare.upload(), undefined);
    assert.equal(bare.peer, undefined);
    assert.equal(bare.progress, undefined);
    assert.equal(bare.script(ctx), 'echo 3');
    // The bound confirmation carries the English sentence (the CLI's) beside what it says (for the app's words).
    assert.deepEqual(bare.confirmations(), [
      {
        kind: 'write',
        say: { id: 'createFiles', values: { count: 3, dir: '/tmp' } },
        reason: 'Creates 3 empty files under /tmp/tagssh-scratch-… (removed afterwards).',
      },
    ]);
  });
});
