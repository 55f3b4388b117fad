import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance, type Seeded, sshdTags } from '../../../lab/seed.js';
import { importKeyPair, keyPairInHome } from '../../../lab/keyPairs.js';
import { startSshd, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { freePort } from '../../../lab/ports.js';
import { runTagssh } from '../../../lab/run.js';
import { createEngine } from '../../../../src/node/engine.js';
import { createAppService } from '../../../../src/node/service.js';
import { tunnelsSection } from '../../../../src/node/tunnels/serviceSection.js';
import { jsonTunnelStore } from '../../../../src/node/tunnels/saved.js';
import { defaultSettings, type Settings } from '../../../../src/common/model/settings.js';
import { TunnelErrorDetailsSchema, type TunnelStatusPayload } from '../../../../src/common/tunnels/contract.js';
import type { AppErrorData } from '../../../../src/common/errors.js';
import { httpGet } from '../../../lab/httpGet.js';

// Tunnels bound to a tag, through the service section as the app drives it: two instances in
// moto tagged env=staging, each a real sshd behind its Elastic IP, an HTTP server reached through
// each one's run. A fixed local port is refused for the second instance, naming the first; a
// version-1 tunnels.json (instance tunnels only) is read and still starts.

let moto: Moto;
let hosts: SshdHost[];
let seeded: Seeded[];
let untagged: Seeded;
let home: string;
let key: KeyPair;
let httpServer: http.Server;
let httpPort: number;
const BODY = `tag tunnel ${randomBytes(6).toString('hex')}\n`;
const savedEnv = { ...process.env };

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-tag-tunnels-'));
  key = keyPairInHome(home, 'team-key');
  const port = await freePort('127.0.0.81');
  moto = await startMoto();
  hosts = await Promise.all(['127.0.0.81', '127.0.0.82'].map((address) => startSshd({ address, port, authorizedKeys: [key.publicKey] })));
  const ec2 = moto.sdk();
  await importKeyPair(ec2, 'team-key', key);
  seeded = [];
  for (const [i, h] of hosts.entries())
    seeded.push(
      await seedInstance(ec2, {
        name: `stg-${i + 1}`,
        eip: h.address,
        keyName: 'team-key',
        imageId: 'ami-1e749f67',
        tags: { env: 'staging', ...sshdTags(h) },
      }),
    );
  untagged = await seedInstance(ec2, { name: 'prod-1', eip: '127.0.0.83', keyName: 'team-key', imageId: 'ami-1e749f67', tags: { env: 'production' } });
  Object.assign(process.env, moto.env, { HOME: home, TAGSSH_HOME: join(home, 'tagssh') });
  // Trusted from a terminal first, as a person would (the app never trusts a key silently).
  for (const name of ['stg-1', 'stg-2']) {
    const r = await runTagssh(['ssh', name, '--accept-new', '--', 'true'], {
      PATH: process.env.PATH,
      ...moto.env,
      HOME: home,
      TAGSSH_HOME: join(home, 'tagssh'),
    });
    assert.equal(r.code, 0, r.stderr);
  }
  httpServer = http.createServer((_req, res) => res.end(BODY));
  httpPort = await freePort();
  await new Promise<void>((r) => httpServer.listen(httpPort, '127.0.0.1', r));
});

after(async () => {
  httpServer?.close();
  await Promise.all([...(hosts ?? []).map((h) => h.stop()), moto?.stop()]);
  for (const h of hosts ?? []) cleanupSshd(h);
  process.env = savedEnv;
  rmSync(home, { recursive: true, force: true });
});

function service(storePath: string) {
  const engine = createEngine();
  let settings: Settings = defaultSettings();
  const svc = createAppService({
    engine,
    settings: { get: () => settings, set: (s) => (settings = s) },
    sections: [tunnelsSection({ store: jsonTunnelStore(storePath) })],
  });
  const events: TunnelStatusPayload[] = [];
  const win = svc.connect((event, payload) => {
    if (event === 'tunnels.status') events.push(payload as TunnelStatusPayload);
  });
  return { h: win.handlers, events, close: () => win.dispose() };
}

async function refusal(fn: () => unknown): Promise<AppErrorData> {
  try {
    await fn();
  } catch (e) {
    return (e as { toJSON(): AppErrorData }).toJSON();
  }
  return assert.fail('expected a refusal');
}

describe('tunnels bound to a tag', () => {
  it('runs once per instance with the tag, each with its own listener and byte counts', async () => {
    const { h, events, close } = service(join(home, 'tag-any-port.json'));
    try {
      const saved = await h['tunnels.save']({
        tag: { key: 'env', value: 'staging' },
        label: 'env=staging',
        kind: 'local',
        port: 0,
        host: '127.0.0.1',
        hostPort: httpPort,
      });
      assert.equal(saved.instanceId, undefined);
      assert.deepEqual(saved.tag, { key: 'env', value: 'staging' });
      const runs = [];
      for (const s of seeded) runs.push(await h['tunnels.start']({ id: saved.id, instanceId: s.id, region: 'us-east-1' }));
      assert.deepEqual(
        runs.map((r) => [r.instanceId, r.state]),
        seeded.map((s) => [s.id, 'open']),
      );
      assert.notEqual(runs[0]!.address, runs[1]!.address, 'one listener per instance');
      for (const s of seeded)
        assert.ok(
          events.some((e) => e.id === saved.id && e.instanceId === s.id && e.state === 'open'),
          'each run’s status event names its instance',
        );
      for (const r of runs) assert.equal(await httpGet(r.address!), BODY);

      const listed = await h['tunnels.list']({});
      const mine = listed.status.filter((s) => s.id === saved.id);
      assert.deepEqual(mine.map((s) => s.instanceId).sort(), seeded.map((s) => s.id).sort());
      // Byte counts are re-sent once a second: wait for the counts to include the bodies.
      const countedAll = async () => (await h['tunnels.list']({})).status.filter((s) => s.id === saved.id);
      let counted = await countedAll();
      for (const deadline = Date.now() + 10_000; counted.some((s) => s.bytesIn < BODY.length) && Date.now() < deadline; counted = await countedAll())
        await new Promise((r) => setTimeout(r, 100));
      for (const s of counted) assert.ok(s.bytesIn >= BODY.length, `bytes counted on ${s.instanceId}: ${s.bytesIn}`);

      const stopped = await h['tunnels.stop']({ id: saved.id, instanceId: seeded[0]!.id });
      assert.equal(stopped.state, 'stopped');
      await assert.rejects(httpGet(runs[0]!.address!), /ECONNREFUSED/);
      assert.equal(await httpGet(runs[1]!.address!), BODY, 'the other instance’s run keeps going');
      const editing = await refusal(() => h['tunnels.save']({ ...saved, port: 1 }));
      assert.equal(TunnelErrorDetailsSchema.parse(editing.details).running, true, 'a run on any instance counts as running');

      // Without an instance, Stop ends every run of a tag tunnel.
      await h['tunnels.stop']({ id: saved.id });
      await assert.rejects(httpGet(runs[1]!.address!), /ECONNREFUSED/);
      assert.deepEqual(
        (await h['tunnels.list']({})).status.filter((s) => s.id === saved.id),
        [],
      );
    } finally {
      close();
    }
  });

  it('a fixed local port serves one instance: the second is refused, naming the first', async () => {
    const { h, close } = service(join(home, 'tag-fixed-port.json'));
    const port = await freePort();
    try {
      const saved = await h['tunnels.save']({
        tag: { key: 'env', value: 'staging' },
        label: 'env=staging',
        kind: 'local',
        port,
        host: '127.0.0.1',
        hostPort: httpPort,
      });
      const first = await h['tunnels.start']({ id: saved.id, instanceId: seeded[0]!.id, region: 'us-east-1' });
      assert.equal(first.address, `127.0.0.1:${port}`);
      const err = await refusal(() => h['tunnels.start']({ id: saved.id, instanceId: seeded[1]!.id, region: 'us-east-1' }));
      assert.equal(err.code, 'INVALID_INPUT');
      assert.equal(err.message, `Local port ${port} is already used by this tunnel for instance ${seeded[0]!.id}.`);
      assert.deepEqual(TunnelErrorDetailsSchema.parse(err.details), { problem: 'tagPortTaken', instanceId: seeded[0]!.id });
      const failed = (await h['tunnels.list']({})).status.find((s) => s.instanceId === seeded[1]!.id);
      assert.equal(failed?.state, 'failed');
      assert.equal(await httpGet(first.address!), BODY, 'the first run is untouched');

      const notTagged = await refusal(() => h['tunnels.start']({ id: saved.id, instanceId: untagged.id, region: 'us-east-1' }));
      assert.equal(notTagged.message, `Instance ${untagged.id} is not tagged env=staging.`);
      assert.deepEqual(TunnelErrorDetailsSchema.parse(notTagged.details), { problem: 'tagMissing', instanceId: untagged.id });

      const noInstance = await refusal(() => h['tunnels.start']({ id: saved.id }));
      assert.equal(noInstance.code, 'INVALID_INPUT');
      assert.match(noInstance.message, /env=staging runs on one instance at a time/);

      await h['tunnels.remove']({ id: saved.id });
      await assert.rejects(httpGet(first.address!), /ECONNREFUSED/);
    } finally {
      close();
    }
  });

  it('reads a version-1 tunnels.json and starts its instance tunnel; the next save writes version 2', async () => {
    const path = join(home, 'v1.json');
    const v1 = {
      id: 'abcdef-1',
      instanceId: seeded[1]!.id,
      region: 'us-east-1',
      label: 'stg-2',
      kind: 'local',
      port: 0,
      host: '127.0.0.1',
      hostPort: httpPort,
    };
    writeFileSync(path, JSON.stringify({ schemaVersion: 1, data: [v1] }));
    const { h, close } = service(path);
    try {
      assert.deepEqual((await h['tunnels.list']({})).tunnels, [v1]);
      const run = await h['tunnels.start']({ id: v1.id });
      assert.equal(run.state, 'open');
      assert.equal(run.instanceId, undefined, 'an instance tunnel runs once, under its own id');
      assert.equal(await httpGet(run.address!), BODY);
      await h['tunnels.stop']({ id: v1.id });
      await h['tunnels.save']({ tag: { key: 'env', value: 'staging' }, label: 'env=staging', kind: 'dynamic', port: 0 });
      const file = JSON.parse(readFileSync(path, 'utf8')) as { schemaVersion: number; data: unknown[] };
      assert.equal(file.schemaVersion, 2);
      assert.deepEqual(file.data[0], v1);
      assert.equal(file.data.length, 2);
    } finally {
      close();
    }
  });
});
