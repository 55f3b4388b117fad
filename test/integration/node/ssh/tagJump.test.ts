import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { startJumpPair, startNetns, type Netns, type NsSshd } from '../../../lab/netns.js';
import { makeKey, type KeyPair } from '../../../lab/sshd.js';
import { startSshAgent, type SshAgent } from '../../../lab/sshAgent.js';
import { runProcess, runTagssh, type Run } from '../../../lab/run.js';
import { jsonSettingsStore, settingsPath } from '../../../../src/node/store/settings.js';
import { defaultSettings } from '../../../../src/common/model/settings.js';

// A tagssh:jump tag naming a host outside EC2 (anyone allowed ec2:CreateTags can write one):
// `tagssh ssh` refuses it, naming the tag and how to allow it; once Settings allow the host, the
// connection goes through it offering the key file only — never the agent's keys. The bastion
// and the target run in a network namespace of their own (test/lab/netns.ts): the target is
// reachable through the bastion alone. The bastion accepts only the key held in the agent.

let dir: string;
let ns: Netns;
let target: NsSshd;
let bastion: NsSshd;
let moto: Moto;
let agentKey: KeyPair;
let otherKey: KeyPair;
let agent: SshAgent;
let home: string;
let spec: string;

const TARGET_ADDR = '127.0.0.5';
const BASTION_ADDR = '127.0.0.21';

const env = () => ({ PATH: process.env.PATH, ...moto.env, HOME: dir, TAGSSH_HOME: home, SSH_AUTH_SOCK: agent.socket });
const tagssh = (args: string[]): Promise<Run> => runTagssh(args, env());
const allow = (entries: string[]) => jsonSettingsStore(settingsPath({ TAGSSH_HOME: home })).set({ ...defaultSettings(), tagJumpHosts: entries });

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-tagjump-'));
  home = join(dir, 'tagssh');
  agentKey = makeKey(join(dir, 'keys'), 'ed25519', { name: 'in_agent' });
  otherKey = makeKey(join(dir, 'keys'), 'ed25519', { name: 'key_file' });
  ns = await startNetns();
  ({ target, bastion } = await startJumpPair(ns, agentKey, { target: TARGET_ADDR, bastion: BASTION_ADDR }));
  agent = await startSshAgent();
  agent.add(agentKey.privatePath);
  moto = await startMoto();
  spec = `${bastion.user}@${BASTION_ADDR}:${bastion.port}`;
  await moto.sdk().send(
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
            { Key: 'tagssh:jump', Value: spec },
            { Key: 'tagssh:user', Value: target.user },
            { Key: 'tagssh:port', Value: String(target.port) },
          ],
        },
      ],
    }),
  );
});

after(async () => {
  agent?.stop();
  await Promise.all([ns?.stop(), moto?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('a tagssh:jump tag naming a host outside EC2', () => {
  it('is refused, naming the tag and how to allow it, and nothing runs', async () => {
    const r = await tagssh(['ssh', 'app', '--accept-new', '--', 'echo', '$TAGSSH_TEST_HOST']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      new RegExp(
        `The tag tagssh:jump=${spec.replace(/[.]/g, '\\.')} on app \\(i-[0-9a-f]+\\) sends connections through ${spec.replace(/[.]/g, '\\.')}, a host outside EC2 that is not on the allow-list; refusing to use it`,
      ),
    );
    assert.match(
      r.stderr,
      new RegExp(
        `→ Name a bastion instance in the tag \\(its Name or id\\), or pass --via ${spec.replace(/[.]/g, '\\.')} to use it this once; to trust it for tags, add "${BASTION_ADDR.replace(/[.]/g, '\\.')}:${bastion.port}" to "tagJumpHosts" in \\S+settings\\.json`,
      ),
    );
  });

  it('an allow-list entry for another port does not allow it', async () => {
    allow([`${BASTION_ADDR}:${bastion.port + 1}`, 'anywhere.example']);
    assert.equal((await tagssh(['ssh', 'app', '--accept-new', '--', 'true'])).code, 2);
  });

  it('once allowed, the bastion is offered the key file but never the agent keys', async () => {
    allow([`${BASTION_ADDR}:${bastion.port}`]);
    // The bastion accepts only the agent's key: refused, because the agent is not offered to it.
    const refused = await tagssh(['ssh', 'app', '--accept-new', '--identity', otherKey.privatePath, '--', 'echo', '$TAGSSH_TEST_HOST']);
    assert.equal(refused.code, 23, refused.stderr);
    assert.match(refused.stderr, new RegExp(`${BASTION_ADDR.replace(/[.]/g, '\\.')}.* did not accept`));
    assert.match(refused.stderr, /key_file/);
    assert.doesNotMatch(refused.stderr, /agent/i, 'no agent key was tried at the bastion');
    // The same bastion given by the person (--via) is theirs: the agent's key gets them through.
    const viaFlag = await tagssh(['ssh', 'app', '--accept-new', '--via', spec, '--identity', otherKey.privatePath, '--', 'echo', '$TAGSSH_TEST_HOST']);
    assert.equal(viaFlag.code, 0, viaFlag.stderr);
    assert.equal(viaFlag.stdout, `${TARGET_ADDR}\n`);
    // With a key file the bastion accepts, the allowed tag carries the connection.
    const allowed = await tagssh(['ssh', 'app', '--accept-new', '--identity', agentKey.privatePath, '--', 'echo', '$TAGSSH_TEST_HOST']);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(allowed.stdout, `${TARGET_ADDR}\n`);
  });

  it('the exported ssh config reaches it as TagSSH does: OpenSSH offers it the key file, never the agent', async () => {
    const cfg = join(dir, 'ssh_config');
    const exportWith = async (key: KeyPair) => {
      const r = await tagssh(['export', 'ssh-config', 'app', '--file', cfg, '--identity', key.privatePath]);
      assert.equal(r.code, 0, r.stderr);
      return readFileSync(cfg, 'utf8');
    };
    const ssh = () =>
      runProcess('ssh', ['-F', cfg, '-o', 'BatchMode=yes', 'app', 'echo $TAGSSH_TEST_HOST'], {
        env: { PATH: process.env.PATH, HOME: dir, SSH_AUTH_SOCK: agent.socket },
      });
    const text = await exportWith(otherKey);
    assert.match(text, /ProxyCommand ssh -o IdentityAgent=none -o ForwardAgent=no -o IdentitiesOnly=yes -i \S+key_file /);
    assert.doesNotMatch(text, /ProxyJump/);
    // The bastion accepts only the agent's key, which OpenSSH does not offer it: refused.
    const refused = await ssh();
    assert.equal(refused.code, 255, refused.stderr);
    assert.match(refused.stderr, new RegExp(`@${BASTION_ADDR.replace(/\./g, '\\.')}: Permission denied \\(publickey`));
    // With a key file the bastion accepts, OpenSSH gets through (the target's key checked in TagSSH's known_hosts).
    await exportWith(agentKey);
    const through = await ssh();
    assert.equal(through.code, 0, through.stderr);
    assert.equal(through.stdout, `${TARGET_ADDR}\n`);
  });
});
