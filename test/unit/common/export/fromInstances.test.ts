import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/common/model/instance.js';
import { teraTermHostsFrom, sshConfigHostsFrom, defaultUser, portOf } from '../../../../src/common/export/fromInstances.js';

function inst(p: Partial<Instance>): Instance {
  return {
    id: 'i-00000000000000001',
    region: 'eu-west-1',
    name: 'web',
    state: 'running',
    type: 't3.micro',
    az: 'eu-west-1a',
    publicIp: '203.0.113.1',
    isElasticIp: false,
    privateIp: '10.0.0.1',
    keyName: null,
    imageId: null,
    platform: null,
    platformDetails: 'Linux/UNIX',
    vpcId: null,
    subnetId: null,
    launchTime: null,
    tags: {},
    ...p,
  };
}

describe('export entries from instances', () => {
  it('user and port: tags first, then the platform', () => {
    assert.equal(defaultUser(inst({ tags: { 'tagssh:user': 'deploy' } })), 'deploy');
    assert.equal(defaultUser(inst({ platformDetails: 'Ubuntu Pro' })), 'ubuntu');
    assert.equal(defaultUser(inst({})), 'ec2-user');
    assert.equal(portOf(inst({ tags: { 'tagssh:port': '2222' } })), 2222);
    assert.equal(portOf(inst({ tags: { 'tagssh:port': 'x' } })), 22);
  });

  it('shared Names are looked up by id; options override tags', () => {
    const list = [inst({}), inst({ id: 'i-00000000000000002' }), inst({ id: 'i-00000000000000003', name: 'db', tags: { 'tagssh:user': 'admin' } })];
    const tt = teraTermHostsFrom(list, { keyFile: 'C:\\k.pem', keyHasPassphrase: true });
    assert.deepEqual(
      tt.map((h) => h.resolveBy),
      ['id', 'id', undefined],
    );
    assert.deepEqual(
      tt.map((h) => h.user),
      ['ec2-user', 'ec2-user', 'admin'],
    );
    assert.equal(tt[0]!.keyFile, 'C:\\k.pem');
    assert.equal(teraTermHostsFrom(list, { user: 'root' })[2]!.user, 'root');
    assert.equal(teraTermHostsFrom(list, { private: true })[0]!.address, '10.0.0.1');
  });

  it('a jump host (option or tagssh:jump) means the private IP through ProxyJump', () => {
    const list = [inst({ name: 'bastion', id: 'i-00000000000000009' }), inst({ name: 'db', tags: { 'tagssh:jump': 'bastion' } })];
    const sc = sshConfigHostsFrom(list, { identityFile: '~/.ssh/k' });
    assert.equal(sc[0]!.jump, undefined, 'the jump host itself is reached directly');
    assert.equal(sc[1]!.jump, 'bastion');
    assert.equal(sc[1]!.privateIp, '10.0.0.1');
    assert.equal(sc[1]!.identityFile, '~/.ssh/k');
  });
});
