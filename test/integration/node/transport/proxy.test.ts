import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTagsCommand, DescribeSubnetsCommand } from '@aws-sdk/client-ec2';
import { usePrivateProxyLab } from '../../../lab/privateProxyLab.js';
import { startEiceLab, type EiceLab } from '../../../lab/eiceServer.js';

// `tagssh proxy NAME --eice`: OpenSSH's own ssh and scp reach a private instance through the lab's
// EC2 Instance Connect Endpoint (test/lab/eiceServer.ts) with the exported ssh config, which
// checks host keys strictly against TagSSH's store. The instance's 10.x address is unreachable
// from here; only the endpoint routes it to the lab sshd.

let lab: EiceLab;

const proxy = usePrivateProxyLab({
  prefix: 'tagssh-eice-proxy-',
  address: '127.0.0.5',
  front: async ({ moto, sshd, app, subnetId }) => {
    const vpcId = (await moto.sdk().send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] }))).Subnets![0]!.VpcId!;
    lab = await startEiceLab({ upstream: moto.endpoint, endpoints: [{ id: 'eice-0123456789abcdef0', vpcId, subnetId, addresses: [app.privateIp!] }] });
    lab.route.set(`${app.privateIp}:${sshd.port}`, { host: sshd.address, port: sshd.port });
    return { env: lab.env, stop: () => lab.close() };
  },
});

describe('tagssh proxy --eice', () => {
  it('looks at the host key through the tunnel first; OpenSSH refuses a key nobody verified', async () => {
    const tunnels = lab.tunnels.length;
    const r = await proxy.run('ssh', [...proxy.sshOpts(), ...proxy.proxyVia('--eice'), proxy.alias, 'echo', 'unverified']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /tagssh: First connection to app \(i-[0-9a-f]+\): its ssh-ed25519 host key SHA256:\S+ is not yet trusted/);
    assert.match(r.stderr, /--accept-new=SHA256:/);
    assert.ok(lab.tunnels.length >= tunnels + 2, 'one tunnel for the look at the key, one for ssh');
  });

  it('after tagssh ssh verified the key, ssh and scp work through the endpoint', async () => {
    const first = await proxy.tagssh('ssh', 'app', '--identity', proxy.key.privatePath, '--accept-new', '--', 'echo', 'verified');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'verified\n');
    const before = lab.tunnels.length;
    const r = await proxy.run('ssh', [...proxy.sshOpts(), ...proxy.proxyVia('--eice'), proxy.alias, 'echo', 'hello-over-eice']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hello-over-eice\n');
    assert.equal(lab.tunnels.length, before + 1);

    const src = join(proxy.dir, 'payload.bin');
    writeFileSync(src, Buffer.alloc(300_000, 7));
    const remote = join(proxy.dir, 'remote.bin');
    const scp = await proxy.run('scp', [...proxy.sshOpts(), ...proxy.proxyVia('--eice'), src, `${proxy.alias}:${remote}`]);
    assert.equal(scp.code, 0, scp.stderr);
    assert.ok(readFileSync(remote).equals(readFileSync(src)));
  });

  it('the exported config as it is, once the instance is tagged tagssh:transport=eice', async () => {
    const plain = await proxy.run('ssh', [...proxy.sshOpts(), proxy.alias, 'echo', 'x']);
    assert.notEqual(plain.code, 0, 'without the tag the proxy wants a public address');
    assert.match(plain.stderr, /no public IP address/);
    await proxy.moto.sdk().send(new CreateTagsCommand({ Resources: [proxy.instanceId], Tags: [{ Key: 'tagssh:transport', Value: 'eice' }] }));
    const r = await proxy.run('ssh', [...proxy.sshOpts(), proxy.alias, 'echo', 'tagged']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'tagged\n');
  });
});
