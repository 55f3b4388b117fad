import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { freePort } from '../../../lab/ports.js';
import { runTagssh, type Run } from '../../../lab/run.js';
import { escapeControls } from '../../../../src/common/safeText.js';

// Tags are written by whoever can tag an instance. A Name made of C1 controls (8-bit CSI, OSC,
// ST: `ESC [`, `ESC ]`, `ESC \` for terminals that honour them) must reach no terminal raw through
// any CLI path: tables, JSON, errors and hints, progress, export summaries, exported files.
// (Raw ESC/BEL cannot be stored in moto's tags: they break its XML; C1 is the same attack.)

const EVIL = 'web\u009b2J\u009d0;PWNED\u009c\u0085x';
const SHOWN = escapeControls(EVIL);
// eslint-disable-next-line no-control-regex -- the set this test looks for
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let moto: Moto;
let home: string;
let evilId: string;
let closedPort: number;

function tagssh(...args: string[]): Promise<Run> {
  return tagsshWith({}, ...args);
}
function tagsshWith(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH ?? '', HOME: home, ...moto.env, TAGSSH_HOME: join(home, 'tagssh'), ...env });
}
function assertNoRawControls(r: Run, what: string): void {
  assert.doesNotMatch(r.stdout, UNSAFE, `${what}: stdout ${JSON.stringify(r.stdout)}`);
  assert.doesNotMatch(r.stderr, UNSAFE, `${what}: stderr ${JSON.stringify(r.stderr)}`);
}

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-untrusted-'));
  closedPort = await freePort('127.0.0.5');
  const ec2 = moto.sdk('us-east-1');
  evilId = (await seedInstance(ec2, { name: EVIL, eip: '127.0.0.5', tags: { 'tagssh:port': String(closedPort), Team: EVIL } })).id;
  await seedInstance(ec2, { name: 'bad-user', tags: { 'tagssh:user': `root${EVIL}` } });
});

after(async () => {
  await moto?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('untrusted text through the real CLI', () => {
  it('list: the table shows the Name escaped and quoted; --json keeps the value, escaped as JSON', async () => {
    const table = await tagssh('list', '--region', 'us-east-1');
    assert.equal(table.code, 0, table.stderr);
    assertNoRawControls(table, 'list');
    assert.ok(table.stdout.includes(escapeControls(JSON.stringify(EVIL))), table.stdout);
    const json = await tagssh('list', '--region', 'us-east-1', '--json');
    assert.equal(json.code, 0, json.stderr);
    assertNoRawControls(json, 'list --json');
    const parsed = JSON.parse(json.stdout) as Array<{ id: string; name: string; tags: Record<string, string> }>;
    const evil = parsed.find((i) => i.id === evilId)!;
    assert.equal(evil.name, EVIL);
    assert.equal(evil.tags.Team, EVIL);
  });

  it('resolve: a not-found name in the error, on stderr and in --json', async () => {
    const r = await tagssh('resolve', `${EVIL}-missing`, '--region', 'us-east-1');
    assert.equal(r.code, 3, r.stderr);
    assertNoRawControls(r, 'resolve');
    assert.ok(r.stderr.includes(`${SHOWN}-missing`), r.stderr);
    const j = await tagssh('resolve', `${EVIL}-missing`, '--region', 'us-east-1', '--json');
    assertNoRawControls(j, 'resolve --json');
    assert.match(JSON.parse(j.stdout).error.message, /web\u009b2J/);
  });

  it('proxy: a connect failure naming the instance, with and without the debug stack', async () => {
    for (const debug of ['0', '1']) {
      const r = await tagsshWith({ TAGSSH_DEBUG: debug }, 'proxy', EVIL, '--region', 'us-east-1');
      assert.notEqual(r.code, 0);
      assertNoRawControls(r, `proxy (TAGSSH_DEBUG=${debug})`);
      if (debug === '1') assert.match(r.stderr, /\n\s+at /, 'the stack is there, escaped');
      assert.ok(r.stderr.includes(`${SHOWN} at 127.0.0.5:${closedPort}`), r.stderr);
      assert.equal(r.stdout, '');
    }
  });

  it('export ssh-config: the Name → alias mapping, the written file and a refused tag value', async () => {
    const file = join(home, 'ssh_config');
    const r = await tagssh('export', 'ssh-config', EVIL, '--region', 'us-east-1', '--file', file);
    assert.equal(r.code, 0, r.stderr);
    assertNoRawControls(r, 'export ssh-config');
    assert.ok(r.stderr.includes(`  ${escapeControls(JSON.stringify(EVIL))}  →  `), r.stderr);
    assert.doesNotMatch(readFileSync(file, 'utf8'), UNSAFE);
    const bad = await tagssh('export', 'ssh-config', 'bad-user', '--region', 'us-east-1', '--file', file);
    assert.equal(bad.code, 40, bad.stderr);
    assertNoRawControls(bad, 'export ssh-config (bad user)');
    assert.ok(bad.stderr.includes(`root${SHOWN}`), bad.stderr);
  });

  it('export teraterm: the paths of the written files (a directory name is untrusted too)', async () => {
    const r = await tagssh('export', 'teraterm', EVIL, '--region', 'us-east-1', '--out', join(home, `ttl-${EVIL}`));
    assert.equal(r.code, 0, r.stderr);
    assertNoRawControls(r, 'export teraterm');
    assert.ok(r.stdout.includes(`ttl-${SHOWN}/`), r.stdout);
  });
});
