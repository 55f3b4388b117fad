import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { usePrivateProxyLab } from '../../../lab/privateProxyLab.js';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';

// `tagssh proxy NAME --ssm`: OpenSSH's own ssh and scp reach a private instance through the lab's
// Session Manager (test/lab/ssmServer.ts, via AWS_ENDPOINT_URL_SSM; moto serves no SSM sessions)
// with the exported ssh config, which checks host keys strictly against TagSSH's store. The
// instance's 10.x address is unreachable from here; only the SSM session reaches the lab sshd.

let lab: SsmLab;

const proxy = usePrivateProxyLab({
  prefix: 'tagssh-ssm-proxy-',
  address: '127.0.0.8',
  front: async ({ sshd, app }) => {
    lab = await startSsmLab();
    lab.nodes.set(app.id, { sshHost: sshd.address });
    return { env: lab.env, stop: () => lab.stop() };
  },
});

describe('tagssh proxy --ssm', () => {
  it('looks at the host key through a session first; OpenSSH refuses a key nobody verified', async () => {
    const sessions = lab.sessions.length;
    const r = await proxy.run('ssh', [...proxy.sshOpts(), ...proxy.proxyVia('--ssm'), proxy.alias, 'echo', 'unverified']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /tagssh: First connection to app \(i-[0-9a-f]+\): its ssh-ed25519 host key SHA256:\S+ is not yet trusted/);
    assert.ok(lab.sessions.length >= sessions + 2, 'one session for the look at the key, one for ssh');
  });

  it('after tagssh ssh verified the key, ssh and scp work through Session Manager', async () => {
    const first = await proxy.tagssh('ssh', 'app', '--transport', 'ssm', '--identity', proxy.key.privatePath, '--accept-new', '--', 'echo', 'verified');
    assert.equal(first.code, 0, first.stderr);
    const before = lab.sessions.length;
    const r = await proxy.run('ssh', [...proxy.sshOpts(), ...proxy.proxyVia('--ssm'), proxy.alias, 'echo', 'hello-over-ssm']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hello-over-ssm\n');
    assert.equal(lab.sessions.length, before + 1);
    assert.equal(lab.sessions.at(-1)!.document, 'AWS-StartSSHSession');

    const src = join(proxy.dir, 'payload.bin');
    writeFileSync(src, Buffer.alloc(300_000, 9));
    const remote = join(proxy.dir, 'remote.bin');
    const scp = await proxy.run('scp', [...proxy.sshOpts(), ...proxy.proxyVia('--ssm'), src, `${proxy.alias}:${remote}`]);
    assert.equal(scp.code, 0, scp.stderr);
    assert.ok(readFileSync(remote).equals(readFileSync(src)));
  });

  it("the agent's CustomerMessage reaches ssh's terminal on stderr, escaped; stdout carries only the session", async () => {
    lab.nodes.set(proxy.instanceId, { sshHost: lab.nodes.get(proxy.instanceId)!.sshHost!, customerMessage: 'Session Manager says hi\u001b]52;c;eA==\u0007' });
    try {
      const r = await proxy.run('ssh', [...proxy.sshOpts(), ...proxy.proxyVia('--ssm'), proxy.alias, 'echo', 'with-notice']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'with-notice\n');
      assert.match(r.stderr, /tagssh: Session Manager: Session Manager says hi\\x1b\]52;c;eA==\\x07/);
      assert.ok(!r.stderr.includes('\u001b]52'), 'no raw OSC 52 reaches the terminal');
    } finally {
      lab.nodes.set(proxy.instanceId, { sshHost: lab.nodes.get(proxy.instanceId)!.sshHost! });
    }
  });

  it('the exported config as it is, once the instance is tagged tagssh:transport=ssm', async () => {
    const plain = await proxy.run('ssh', [...proxy.sshOpts(), proxy.alias, 'echo', 'x']);
    assert.notEqual(plain.code, 0, 'without the tag the proxy wants a public address');
    await proxy.moto.sdk().send(new CreateTagsCommand({ Resources: [proxy.instanceId], Tags: [{ Key: 'tagssh:transport', Value: 'ssm' }] }));
    const r = await proxy.run('ssh', [...proxy.sshOpts(), proxy.alias, 'echo', 'tagged']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'tagged\n');
  });

  it('--eice with --ssm is refused in one line', async () => {
    const r = await proxy.tagssh('proxy', 'app', '--eice', '--ssm');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Give --eice or --ssm, not both/);
  });
});
