import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loginUserFor, userFromImage } from '../../../../src/node/ssh/users.js';
import { parseHostSpec } from '../../../../src/node/ssh/target.js';
import type { Instance } from '../../../../src/common/model/instance.js';

const base: Instance = {
  id: 'i-0123456789abcdef0',
  region: 'eu-west-1',
  name: 'web',
  state: 'running',
  type: 't3.micro',
  az: 'eu-west-1a',
  publicIp: '203.0.113.7',
  isElasticIp: false,
  privateIp: '10.0.0.7',
  keyName: 'team',
  imageId: 'ami-1',
  platform: null,
  platformDetails: 'Linux/UNIX',
  vpcId: null,
  subnetId: null,
  launchTime: null,
  tags: {},
};

describe('userFromImage', () => {
  const cases: Array<[string, string | undefined]> = [
    ['al2023-ami-2023.4.20240528.0-kernel-6.1-x86_64', 'ec2-user'],
    ['amzn2-ami-kernel-5.10-hvm-2.0.20240529.0-x86_64-gp2', 'ec2-user'],
    ['ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-20240523.1', 'ubuntu'],
    ['debian-12-amd64-20240507-1740', 'admin'],
    ['CentOS Stream 9 x86_64 20240520', 'centos'],
    ['RHEL-9.4.0_HVM-20240605-x86_64-82-Hourly2-GP3', 'ec2-user'],
    ['Rocky-9-EC2-Base-9.4-20240523.0.x86_64', 'rocky'],
    ['AlmaLinux OS 9.4.20240507 x86_64', 'ec2-user'],
    ['Fedora-Cloud-Base-40-1.14.x86_64-hvm-us-east-1-gp3-0', 'fedora'],
    ['suse-sles-15-sp5-v20240510-hvm-ssd-x86_64', 'ec2-user'],
    ['bitnami-wordpress-6.5.3-0-r05-linux-debian-12-x86_64-hvm-ebs-nami', 'bitnami'],
    ['my-company-golden-image-2024', undefined],
  ];
  for (const [name, user] of cases)
    it(`${name} → ${user ?? '(unknown)'}`, () => assert.equal(userFromImage(null, 'Linux/UNIX', { name, description: null }), user));

  it('decides from PlatformDetails alone where it names the family', () => {
    assert.equal(userFromImage(null, 'Red Hat Enterprise Linux', null), 'ec2-user');
    assert.equal(userFromImage(null, 'Ubuntu Pro', null), 'ubuntu');
    assert.equal(userFromImage('windows', 'Windows', null), 'Administrator');
    assert.equal(userFromImage(null, 'Linux/UNIX', null), undefined);
  });
});

describe('loginUserFor', () => {
  const ubuntu = async () => ({ name: 'ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-amd64-server-20240301', description: null });
  it("what a person chose beats a guess: --user, the instance's Connect as…, the tag, Settings, then the AMI, then ec2-user", async () => {
    const settings = { defaultUser: 'ops', connectAs: { [base.id]: { user: 'mine' } } };
    const tagged = { ...base, tags: { 'tagssh:user': 'deploy' } };
    assert.deepEqual(await loginUserFor({ instance: tagged, flagUser: 'me', settings, lookupImage: ubuntu }), { user: 'me', source: 'flag' });
    assert.deepEqual(await loginUserFor({ instance: tagged, settings, lookupImage: ubuntu }), { user: 'mine', source: 'instance' });
    assert.deepEqual(await loginUserFor({ instance: tagged, settings: { defaultUser: 'ops' }, lookupImage: ubuntu }), { user: 'deploy', source: 'tag' });
    // The issue's case: Settings' user wins over a recognised AMI.
    assert.deepEqual(await loginUserFor({ instance: base, settings: { defaultUser: 'root' }, lookupImage: ubuntu }), { user: 'root', source: 'settings' });
    assert.deepEqual(await loginUserFor({ instance: base, lookupImage: ubuntu }), { user: 'ubuntu', source: 'ami' });
    assert.deepEqual(await loginUserFor({ instance: base, lookupImage: async () => null }), { user: 'ec2-user', source: 'default' });
  });
  it('asks EC2 for the image only when nobody chose a user', async () => {
    let looked = 0;
    await loginUserFor({ instance: base, settings: { defaultUser: 'root' }, lookupImage: async () => (looked++, null) });
    assert.equal(looked, 0);
  });
  it('does not look the image up when PlatformDetails already says', async () => {
    let looked = false;
    const r = await loginUserFor({ instance: { ...base, platformDetails: 'Red Hat Enterprise Linux' }, lookupImage: async () => ((looked = true), null) });
    assert.equal(r.user, 'ec2-user');
    assert.equal(looked, false);
  });
});

describe('parseHostSpec', () => {
  it('tells hosts from instance names', () => {
    assert.deepEqual(parseHostSpec('admin@10.0.0.5:2222'), { user: 'admin', host: '10.0.0.5', port: 2222 });
    assert.deepEqual(parseHostSpec('bastion.example.com'), { host: 'bastion.example.com' });
    assert.deepEqual(parseHostSpec('ec2-user@bastion'), { user: 'ec2-user', host: 'bastion' });
    assert.equal(parseHostSpec('bastion'), null, 'a bare word is a Name tag');
    assert.equal(parseHostSpec('my bastion'), null);
  });
});
