import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { startJumpPair, startNetns, type Netns, type NsSshd } from '../../../lab/netns.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { connect, type ConnectOptions } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import { connectTargetFor } from '../../../../src/node/ssh/target.js';
import { resetClients } from '../../../../src/node/aws/config/clients.js';
import { defaultSettings } from '../../../../src/common/model/settings.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import type { AppError } from '../../../../src/common/errors.js';

// Jump hosts with a target the client really cannot reach: the target and the bastion run in
// their own network namespace (test/lab/netns.ts); only the bastion's port is relayed to the
// host's loopback, and the bastion may forward only to the target (PermitOpen). A second bastion
// on the host's loopback makes a two-hop chain. Names resolve through moto: the bastion has an
// Elastic IP on its relay address, the target a private IP inside the namespace and a
// tagssh:jump tag naming the bastion.

const root = join(import.meta.dirname, '../../../..');
let dir: string;
let ns: Netns;
let target: NsSshd;
let bastion: NsSshd;
let outer: SshdHost;
let moto: Moto;
let key: KeyPair;
let store: KnownHostsStore;
const savedEnv = { ...process.env };

const TARGET_ADDR = '127.0.0.5';
const BASTION_ADDR = '127.0.0.8';

function hop(h: { address: string; port: number; user: string }, label: string): ConnectTarget {
  return { host: h.address, port: h.port, user: h.user, label, identityFile: key.privatePath, acceptNewHostKey: true };
}
function opts(): ConnectOptions {
  return { knownHosts: store, consoleOutput: null, agent: null, timeoutMs: 10_000 };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-jump-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  ns = await startNetns();
  ({ target, bastion } = await startJumpPair(ns, key, { target: TARGET_ADDR, bastion: BASTION_ADDR }));
  outer = await startSshd({ address: '127.0.0.9', authorizedKeys: [key.publicKey], extraConfig: [`PermitOpen ${BASTION_ADDR}:${bastion.port}`] });
  store = new KnownHostsStore(join(dir, 'known_hosts.json'));

  moto = await startMoto();
  Object.assign(process.env, moto.env, { TAGSSH_HOME: join(dir, 'home'), HOME: dir });
  resetClients();
  const ec2 = moto.sdk();
  await seedInstance(ec2, {
    name: 'bastion',
    eip: BASTION_ADDR,
    imageId: 'ami-1e749f67',
    tags: sshdTags(bastion),
  });
  await ec2.send(
    new RunInstancesCommand({
      ImageId: 'ami-1e749f67',
      MinCount: 1,
      MaxCount: 1,
      PrivateIpAddress: TARGET_ADDR,
      TagSpecifications: [
        {
          ResourceType: 'instance',
          Tags: [
            { Key: 'Name', Value: 'app' },
            { Key: 'tagssh:jump', Value: 'bastion' },
            { Key: 'tagssh:user', Value: target.user },
            { Key: 'tagssh:port', Value: String(target.port) },
          ],
        },
      ],
    }),
  );
});

after(async () => {
  process.env = savedEnv;
  await Promise.all([ns?.stop(), outer?.stop(), moto?.stop()]);
  if (outer) cleanupSshd(outer);
  rmSync(dir, { recursive: true, force: true });
});

describe('jump hosts', () => {
  it('the client cannot reach the target directly', async () => {
    await assert.rejects(connect(hop(target, 'app'), opts()), (e: AppError) => {
      assert.equal(e.code, 'CONNECT_FAILED');
      return true;
    });
  });

  it('reaches it through the bastion, verifying both host keys', async () => {
    const conn = await connect({ ...hop(target, 'app'), jump: [hop(bastion, 'bastion')] }, opts());
    try {
      const r = await conn.exec('echo "$TAGSSH_TEST_HOST"; exit 4');
      assert.deepEqual([r.code, r.stdout], [4, `${TARGET_ADDR}\n`]);
      assert.ok(store.get(`${TARGET_ADDR}:${target.port}`), 'target key trusted');
      assert.ok(store.get(`${BASTION_ADDR}:${bastion.port}`), 'bastion key trusted');
    } finally {
      conn.close();
    }
  });

  it('chains two bastions', async () => {
    const conn = await connect({ ...hop(target, 'app'), jump: [hop(outer, 'outer'), hop(bastion, 'bastion')] }, opts());
    assert.equal((await conn.exec('echo "$TAGSSH_TEST_HOST"')).stdout, `${TARGET_ADDR}\n`);
    conn.close();
  });

  it('says which bastion refused to forward', async () => {
    await assert.rejects(connect({ ...hop(target, 'app'), port: 1, jump: [hop(bastion, 'bastion')] }, opts()), (e: AppError) => {
      assert.equal(e.code, 'CONNECT_FAILED');
      assert.match(e.message, /bastion refused to forward to 127\.0\.0\.5:1/);
      return true;
    });
  });

  it('resolves the bastion from the tagssh:jump tag and the target by its private IP', async () => {
    const t = await connectTargetFor('app', { settings: defaultSettings(), acceptNew: true });
    assert.equal(t.host, TARGET_ADDR);
    assert.equal(t.port, target.port);
    assert.deepEqual(
      t.jump?.map((j) => [j.label, j.host, j.port]),
      [['bastion', BASTION_ADDR, bastion.port]],
    );
    const conn = await connect({ ...t, identityFile: key.privatePath, jump: t.jump!.map((j) => ({ ...j, identityFile: key.privatePath })) }, opts());
    assert.equal((await conn.exec('echo "$TAGSSH_TEST_HOST"')).stdout, `${TARGET_ADDR}\n`);
    conn.close();
  });

  it('tagssh ssh --via goes through a bastion given as user@host:port', async () => {
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(
        process.execPath,
        [
          join(root, 'bin/tagssh.mjs'),
          'ssh',
          'app',
          '--identity',
          key.privatePath,
          '--via',
          `${outer.user}@${outer.address}:${outer.port}`,
          '--via',
          'bastion',
          '--accept-new',
          '--',
          'echo',
          '$TAGSSH_TEST_HOST',
        ],
        { env: { PATH: process.env.PATH, ...moto.env, HOME: dir, TAGSSH_HOME: join(dir, 'cli-home') }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${TARGET_ADDR}\n`);
  });
});
