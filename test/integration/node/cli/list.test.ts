import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance, type Seeded } from '../../../lab/seed.js';
import { runTagssh, type Run } from '../../../lab/run.js';

// `tagssh list` across regions and with --filter, the real CLI against moto.

let moto: Moto;
let home: string;
const s: Record<string, Seeded> = {};

function tagssh(args: string[]): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH ?? '', HOME: home, ...moto.env, TAGSSH_HOME: join(home, 'tagssh') });
}

const header = (r: Run) => r.stdout.split('\n')[0]!.split(/\s{2,}/);
const names = (r: Run) =>
  r.stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s{2,}/)[0])
    .sort();

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-list-'));
  s.web = await seedInstance(moto.sdk('us-east-1'), { name: 'web-1', tags: { env: 'prod', team: 'web' } });
  s.stage = await seedInstance(moto.sdk('us-east-1'), { name: 'web-2', tags: { env: 'staging' } });
  s.osaka = await seedInstance(moto.sdk('ap-northeast-3'), { name: '大阪-db', tags: { env: 'prod' } });
});

after(async () => {
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

test('list --region all has a REGION column telling the regions apart', async () => {
  const r = await tagssh(['list', '--region', 'all']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(header(r), ['NAME', 'INSTANCE', 'STATE', 'TYPE', 'REGION', 'ZONE', 'PUBLIC IP', 'PRIVATE IP']);
  const osaka = r.stdout.split('\n').find((l) => l.includes(s.osaka!.id))!;
  assert.equal(osaka.split(/\s{2,}/)[4], 'ap-northeast-3');
  // One region: no REGION column.
  const one = await tagssh(['list']);
  assert.equal(one.code, 0, one.stderr);
  assert.ok(!header(one).includes('REGION'), one.stdout);
});

test('--filter key=value matches tags the way the app shows them; words and Name= too', async () => {
  const prod = await tagssh(['list', '--region', 'all', '--filter', 'env=prod']);
  assert.equal(prod.code, 0, prod.stderr);
  assert.deepEqual(names(prod), ['web-1', '大阪-db'].sort());
  const both = await tagssh(['list', '--region', 'all', '--filter', 'env=prod team=web']);
  assert.deepEqual(names(both), ['web-1']);
  const byName = await tagssh(['list', '--filter', 'Name=web']);
  assert.deepEqual(names(byName), ['web-1', 'web-2']);
  const json = await tagssh(['list', '--json', '--filter', 'staging']);
  assert.deepEqual(
    JSON.parse(json.stdout).map((i: { id: string }) => i.id),
    [s.stage!.id],
  );
});

test('--filter that matches nothing says so on stderr, with how many were listed', async () => {
  const r = await tagssh(['list', '--filter', 'env=nope']);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /No instance matches --filter "env=nope" \(2 listed before filtering\)/);
  const hostile = await tagssh(['list', '--filter', 'x\u009b2J\u009d0;T\u009c']);
  assert.match(hostile.stderr, /No instance matches --filter "x\\x9b2J\\x9d0;T\\x9c"/, 'what the user typed is echoed with C1 controls escaped');
});

test('--filter without words is a usage error naming the flag (exit 2)', async () => {
  const r = await tagssh(['list', '--filter']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--filter/);
  assert.equal(r.stdout, '');
});
