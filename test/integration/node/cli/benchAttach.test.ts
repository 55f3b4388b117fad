import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportKeyPairCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { cleanupSshd, makeKey, startSshd, type KeyPair, type SshdHost } from '../../../lab/sshd.js';
import { runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// A connection dropped in the middle of a repeated series, through the CLI: the lab sshd's
// session processes are killed while the second of three runs is creating its files (the run,
// in its own session on the host, keeps going). The series stops at that run and says how to
// collect it; `tagssh bench attach SERIES` collects it and runs the third, and the saved series
// is three good runs in order with nothing left on the host. And the command killed between two
// runs of a series: `bench attach` (by the series' id or a run's) says where the series stopped
// and why, and the saved run too.

let moto: Moto;
let host: SshdHost;
let home: string;
let key: KeyPair;
let work: string;

function env(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...moto.env, AWS_ENDPOINT_URL_EFS: moto.endpoint, HOME: home, TAGSSH_HOME: join(home, 'tagssh') };
}
const tagssh = (args: string[]): Promise<Run> => runTagssh(args, env());

/** The sshd processes serving connections (the listener's children); killing them drops every connection. */
function sessions(): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(host.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there is none
  }
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-attach-'));
  work = mkdtempSync(join('/var/tmp', 'tagssh-attach-'));
  key = makeKey(join(home, 'gen'), 'ed25519', { name: 'attach-key' });
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  writeFileSync(join(home, '.ssh', 'attach-key.pem'), readFileSync(key.privatePath), { mode: 0o600 });
  [moto, host] = await Promise.all([startMoto(), startSshd({ address: '127.0.0.90', authorizedKeys: [key.publicKey] })]);
  const ec2 = moto.sdk();
  await ec2.send(new ImportKeyPairCommand({ KeyName: 'attach-key', PublicKeyMaterial: readFileSync(key.publicPath) }));
  await seedInstance(ec2, { name: 'attach-0', eip: host.address, keyName: 'attach-key', tags: { 'tagssh:user': host.user, 'tagssh:port': String(host.port) } });
});

after(async () => {
  await Promise.all([host?.stop(), moto?.stop()]);
  if (host) cleanupSshd(host);
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('bench attach inside a series (CLI)', () => {
  it('the connection drops in run 2 of 3: the series stops there; attach by the series id collects run 2 and runs run 3', async () => {
    const p = spawn(
      process.execPath,
      [TAGSSH_BIN, 'bench', 'smallfiles', 'attach-0', '--param', `dir=${work}`, '--param', 'count=300', '--repeat', '3', '--yes', '--accept-new'],
      { env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let dropped = false;
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => {
      stderr += d;
      if (!dropped && stderr.includes('run 2] create')) {
        dropped = true;
        for (const pid of sessions()) process.kill(pid, 'SIGKILL');
      }
    });
    const code = await new Promise<number | null>((res) => p.on('close', res));
    assert.ok(dropped, `the second run was seen creating its files: ${stderr}`);
    assert.notEqual(code, 0, stdout);
    assert.match(stdout, /attach-0 .*: 2 runs, 1 detached, .*\[series ([a-z0-9-]+)\]/);
    const seriesId = /\[series ([a-z0-9-]+)\]/.exec(stdout)![1]!;
    assert.match(
      stdout,
      /run 2 detached: Lost the connection to attach-0; the benchmark keeps running there\.\n {2}→ tagssh bench attach \S+ collects it, then runs the rest of the series/,
    );

    const back = await tagssh(['bench', 'attach', seriesId]);
    assert.equal(back.code, 0, back.stderr + back.stdout);
    assert.match(back.stdout, /^Collected run 2 \(ok\); the series went on with 1 more run\.\n/);
    assert.match(back.stdout, /attach-0 .*: 3 runs, RSD [\d.]+% \(create\.ops\)/);
    assert.match(back.stdout, /create \(touch\) ops\/s\s+3\s/);

    const saved = JSON.parse((await tagssh(['results', '--format', 'json'])).stdout) as {
      id: string;
      status: string;
      series: { id: string; index: number };
      meta?: { amiName?: string | null };
    }[];
    const mine = saved.filter((r) => r.series?.id === seriesId).sort((a, b) => a.series.index - b.series.index);
    assert.deepEqual(
      mine.map((r) => [r.series.index, r.status]),
      [
        [0, 'ok'],
        [1, 'ok'],
        [2, 'ok'],
      ],
    );
    // The runs the attach collected and started have their AWS metadata, as the first run has.
    const ami = mine[0]!.meta?.amiName;
    assert.ok(ami, 'the first run has its AMI name (moto knows the image)');
    assert.deepEqual(
      mine.map((r) => r.meta?.amiName),
      [ami, ami, ami],
    );
    assert.deepEqual(readdirSync(work), [], 'every run removed its files');
    for (const r of mine)
      assert.deepEqual(
        readdirSync('/tmp').filter((n) => n.includes(r.id)),
        [],
        'no run directory left',
      );
    const again = await tagssh(['bench', 'attach', seriesId]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, new RegExp(`Series ${seriesId} has no detached run`));
  });

  it('the command is killed between run 1 and run 2 of 3: attach says the series stopped after 1 of 3 and why, and the saved series says so', async () => {
    // Run 2 is held before its first save: the lab sshd's listener is stopped once run 1 is under
    // way (run 1's session goes on in its own process), so run 2's connection waits for a banner.
    const p = spawn(
      process.execPath,
      [TAGSSH_BIN, 'bench', 'smallfiles', 'attach-0', '--param', `dir=${work}`, '--param', 'count=300', '--repeat', '3', '--yes', '--accept-new'],
      { env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let held = false;
    const closed = new Promise<void>((res) => p.on('close', () => res()));
    try {
      const firstDone = new Promise<void>((res) =>
        p.stderr.on('data', (d) => {
          stderr += d;
          if (!held && stderr.includes('run 1] create')) {
            held = true;
            process.kill(host.pid!, 'SIGSTOP');
          }
          if (stderr.includes('run 1] ok')) res();
        }),
      );
      await Promise.race([firstDone, closed]);
      assert.ok(held && stderr.includes('run 1] ok'), `run 1 ended with run 2 held: ${stderr}`);
      // Run 2 has started and waits for the host's banner; nothing of it is saved yet.
      await new Promise((r) => setTimeout(r, 500));
      p.kill('SIGKILL');
      await closed;
    } finally {
      if (held) process.kill(host.pid!, 'SIGCONT');
    }
    const before = JSON.parse((await tagssh(['results', '--format', 'json'])).stdout) as {
      id: string;
      status: string;
      series?: { id: string; index: number };
    }[];
    const cut = before.filter((r) => r.series && before.filter((o) => o.series?.id === r.series!.id).length === 1);
    assert.equal(cut.length, 1, JSON.stringify(before));
    const seriesId = cut[0]!.series!.id;
    assert.equal(cut[0]!.status, 'ok');

    const stoppedWords = new RegExp(
      `Series ${seriesId} stopped after 1 of 3 runs: the process running it stopped and run 2 never started on the instance\\. Nothing is left running to re-attach to\\.\\n {2}→ Run the series again for the rest; its saved runs stay\\.`,
    );
    // By run 1's own id first (nothing recorded yet): the same words as by the series' id.
    const byRun = await tagssh(['bench', 'attach', cut[0]!.id]);
    assert.equal(byRun.code, 2, byRun.stdout + byRun.stderr);
    assert.match(byRun.stderr, stoppedWords);
    const back = await tagssh(['bench', 'attach', seriesId]);
    assert.equal(back.code, 2, back.stdout + back.stderr);
    assert.match(back.stderr, stoppedWords);
    const list = await tagssh(['results']);
    assert.match(list.stdout, new RegExp(`${seriesId} +smallfiles +ok \\(stopped after 1 of 3 runs\\)`), list.stdout);
    const saved = JSON.parse((await tagssh(['results', '--format', 'json'])).stdout) as { notes: string[]; series?: { id: string; stopped?: unknown } }[];
    const run1 = saved.find((r) => r.series?.id === seriesId)!;
    assert.deepEqual(run1.series?.stopped, { lost: false });
    assert.deepEqual(run1.notes, [
      'The series stopped after 1 of 3 runs: the process running it (the engine or a tagssh command) stopped and run 2 never started on the instance. Run the series again for the rest.',
    ]);
    assert.deepEqual(readdirSync(work), [], 'run 1 removed its files; run 2 wrote none');
  });
});
