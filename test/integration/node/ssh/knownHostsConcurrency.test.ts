import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';

// The known_hosts store under real concurrency: separate OS processes (as the CLI, the app and
// several tabs are), all released at the same instant, against one file.

const WORKER = join(import.meta.dirname, '../../../support/knownHostsWorker.ts');
const dir = mkdtempSync(join(tmpdir(), 'tagssh-khc-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function worker(...args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    // The worker's one JSON line is its whole answer: once it is in, a worker that then fails to
    // exit (Node 20 with tsx's loader thread has hung at exit on a loaded machine) is ended here.
    let endedByUs = false;
    const end = () => {
      endedByUs = true;
      p.kill('SIGKILL');
    };
    const giveUp = setTimeout(end, 120_000);
    p.stdout.on('data', (d) => {
      out += d;
      if (out.endsWith('\n')) setTimeout(end, 5000).unref();
    });
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => {
      clearTimeout(giveUp);
      if (out.endsWith('\n') && (code === 0 || endedByUs)) resolve(JSON.parse(out) as Record<string, unknown>);
      else reject(new Error(`worker ${args[0]} exited ${code ?? 'on a signal'}${out ? '' : ' without an answer'}: ${err}`));
    });
  });
}
/** A start time far enough ahead for every worker to have loaded (tsx start-up on a busy machine). */
const startAt = (ms = 4000) => String(Date.now() + ms);

describe('known_hosts shared by many processes', () => {
  it('20 processes trusting different hosts at once lose no entry', async () => {
    const path = join(dir, 'many', 'known_hosts');
    const go = startAt(6000);
    const results = await Promise.all(Array.from({ length: 20 }, (_, w) => worker('trust', path, go, `host${w}`, '10')));
    assert.ok(results.every((r) => r.ok === 10));
    const ids = new KnownHostsStore(path).list().map(([id]) => id);
    assert.equal(ids.length, 200, `lost ${200 - ids.length} of 200 entries`);
    assert.deepEqual(readdirSync(join(dir, 'many')).sort(), ['known_hosts'], 'no lock or temp file left behind');
  });

  it('two racing first contacts with different keys: exactly one is trusted, the other refused as changed', async () => {
    const path = join(dir, 'race', 'known_hosts');
    const go = startAt();
    const id = 'i-0123456789abcdef0';
    const [a, b] = await Promise.all([worker('decide', path, go, id, '300'), worker('decide', path, go, id, '300')]);
    const ok = [a!, b!].filter((r) => r.ok);
    const refused = [a!, b!].filter((r) => !r.ok);
    assert.equal(ok.length, 1, JSON.stringify([a, b]));
    assert.equal(refused[0]?.code, 'HOST_KEY_CHANGED');
    const entry = new KnownHostsStore(path).get(id);
    assert.deepEqual(
      entry?.keys.map((k) => k.fingerprint),
      [ok[0]!.fingerprint],
      'the store trusts the key that was accepted',
    );
  });

  it('a touch racing a forget never brings the forgotten entries back', async () => {
    const path = join(dir, 'touch', 'known_hosts');
    const ids = Array.from({ length: 40 }, (_, i) => `10.0.0-${i}:22`);
    const seed = await worker('trust', path, String(Date.now()), '10.0.0', '40');
    assert.equal(seed.ok, 40);
    assert.equal(new KnownHostsStore(path).list().length, 40);
    const go = startAt();
    const [, forgot] = await Promise.all([worker('touch', path, go, ids.join(','), '15'), worker('forget', path, String(Number(go) + 50), ids.join(','))]);
    assert.equal((forgot.removed as string[]).length, 40);
    assert.deepEqual(
      new KnownHostsStore(path).list().map(([id]) => id),
      [],
      'forgotten entries stay forgotten',
    );
  });
});
