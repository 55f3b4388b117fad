import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/common/model/instance.js';
import { teraTermHostsFrom, sshConfigHostsFrom, defaultUser, portOf } from '../../../../src/common/export/fromInstances.js';
import { sshConfigBlock } from '../../../../src/common/export/sshConfig.js';

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

  it("IdentityFile in a connection's order: the flag or Connect as…, the key pair's local file, then Settings'", () => {
    const a = inst({ keyName: 'team' });
    const b = inst({ id: 'i-00000000000000002', name: 'b', keyName: 'team' });
    const c = inst({ id: 'i-00000000000000003', name: 'c', keyName: 'gone' });
    const settings = { defaultUser: null, port: 22, identityFile: '~/.ssh/settings.pem', connectAs: { [b.id]: { identityFile: '~/.ssh/b.pem' } } };
    const keyPairFileOf = (i: Instance) => (i.keyName === 'team' ? '/home/me/.ssh/team.pem' : undefined);
    const files = (o: Parameters<typeof sshConfigHostsFrom>[1]) => sshConfigHostsFrom([a, b, c], o).map((h) => h.identityFile);
    assert.deepEqual(files({ settings, keyPairFileOf }), ['/home/me/.ssh/team.pem', '~/.ssh/b.pem', '~/.ssh/settings.pem']);
    assert.deepEqual(files({ settings, keyPairFileOf, identityFile: '~/.ssh/flag.pem' }), ['~/.ssh/flag.pem', '~/.ssh/flag.pem', '~/.ssh/flag.pem']);
    assert.deepEqual(files({ keyPairFileOf }), ['/home/me/.ssh/team.pem', '/home/me/.ssh/team.pem', undefined]);
  });

  it('a jump host (option or tagssh:jump) means the private IP through ProxyJump', () => {
    const list = [inst({ name: 'bastion', id: 'i-00000000000000009' }), inst({ name: 'db', tags: { 'tagssh:jump': 'bastion' } })];
    const sc = sshConfigHostsFrom(list, { identityFile: '~/.ssh/k' });
    assert.equal(sc[0]!.jump, undefined, 'the jump host itself is reached directly');
    assert.equal(sc[1]!.jump, 'bastion');
    assert.equal(sc[1]!.privateIp, '10.0.0.1');
    assert.equal(sc[1]!.identityFile, '~/.ssh/k');
  });

  it('copies a tagssh:jump tag only when TagSSH would accept it: an instance, or an outside host Settings allow', () => {
    const settings = { defaultUser: null, port: 22, identityFile: null, jumpHost: 'mine.example', tagJumpHosts: ['ok.example', '198.51.100.7:2222'] };
    const list = [
      inst({ id: 'i-00000000000000011', name: 'to-instance', tags: { 'tagssh:jump': 'bastion' } }),
      inst({ id: 'i-00000000000000012', name: 'to-outside', tags: { 'tagssh:jump': 'ec2-user@anywhere.example' } }),
      inst({ id: 'i-00000000000000013', name: 'to-allowed', tags: { 'tagssh:jump': 'ec2-user@OK.example' } }),
      inst({ id: 'i-00000000000000014', name: 'wrong-port', tags: { 'tagssh:jump': 'admin@198.51.100.7:22' } }),
      inst({ id: 'i-00000000000000015', name: 'allowed-port', tags: { 'tagssh:jump': 'admin@198.51.100.7:2222' } }),
      inst({ id: 'i-00000000000000016', name: 'one-bad-hop', tags: { 'tagssh:jump': 'bastion, evil@203.0.113.9' } }),
      inst({ id: 'i-00000000000000017', name: 'opted-out', tags: { 'tagssh:jump': 'none' } }),
      inst({ id: 'i-00000000000000018', name: 'untagged' }),
    ];
    const sc = sshConfigHostsFrom(list, { settings });
    assert.deepEqual(
      sc.map((h) => [h.name, h.jump]),
      [
        ['to-instance', 'bastion'],
        ['to-outside', undefined],
        ['to-allowed', 'ec2-user@OK.example'],
        ['wrong-port', undefined],
        ['allowed-port', 'admin@198.51.100.7:2222'],
        ['one-bad-hop', undefined],
        ['opted-out', undefined],
        ['untagged', 'mine.example'],
      ],
    );
    // The dialog's or --jump's own choice is the person's: copied as given.
    assert.equal(sshConfigHostsFrom([list[1]!], { settings, jump: 'ec2-user@anywhere.example' })[0]!.jump, 'ec2-user@anywhere.example');
    // An allowed outside host from a tag is reached without the agent; an instance, or the person's own jump host, as before.
    assert.deepEqual(
      sc.map((h) => h.jumpWithoutAgent ?? false),
      [false, false, true, false, true, false, false, false],
    );
    assert.equal(sshConfigHostsFrom([list[1]!], { settings, jump: 'ec2-user@anywhere.example' })[0]!.jumpWithoutAgent, undefined);
  });

  it('the ssh config reaches an allowed outside bastion a tag named with ssh -W, the agent kept away; an instance bastion by ProxyJump', () => {
    const settings = { defaultUser: null, port: 22, identityFile: '~/.ssh/team key.pem', jumpHost: null, tagJumpHosts: ['ok.example'] };
    const list = [
      inst({ id: 'i-00000000000000021', name: 'outside', privateIp: '10.0.0.21', tags: { 'tagssh:jump': 'jumper@ok.example:2222' } }),
      inst({ id: 'i-00000000000000022', name: 'inside', privateIp: '10.0.0.22', tags: { 'tagssh:jump': 'bastion' } }),
    ];
    const { text } = sshConfigBlock(sshConfigHostsFrom(list, { settings }), { tagsshCommand: ['tagssh'] });
    assert.match(
      text,
      /Host outside\n {2}HostName 10\.0\.0\.21\n {2}ProxyCommand ssh -o IdentityAgent=none -o ForwardAgent=no -o IdentitiesOnly=yes -i '~\/\.ssh\/team key\.pem' -p 2222 -W %h:%p -- jumper@ok\.example\n/,
    );
    assert.match(text, /Host inside\n {2}HostName 10\.0\.0\.22\n {2}ProxyJump bastion\n/);
    assert.doesNotMatch(text, /ProxyJump jumper@ok\.example/);
  });
});
