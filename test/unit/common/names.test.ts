import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nameKey, similarNames } from '../../../src/common/names.js';
import { KNOWN_REGIONS, isKnownRegion, regionsMeant } from '../../../src/common/regions.js';
import { chosenUser, loginPort, splitUserAtName } from '../../../src/common/login.js';

// The pure rules behind "did you mean", --region tokyo and the one login order.

describe('names typed almost right', () => {
  const names = ['web-1', 'web-2', 'db-primary', '踏み台'];
  it('finds web-1 for another case, no dash, spaces around it, full-width (an IME slip)', () => {
    for (const typed of ['Web-1', 'web1', 'web-1 ', 'ｗｅｂ－１', 'WEB_1']) assert.deepEqual(similarNames(typed, names).slice(0, 1), ['web-1'], typed);
    assert.equal(nameKey('ｗｅｂ－１'), nameKey('web-1'));
  });
  it('one slip of a key; nothing for a name that is far from all', () => {
    assert.deepEqual(similarNames('db-primray', names), ['db-primary']);
    assert.deepEqual(similarNames('cache', names), []);
    assert.deepEqual(similarNames('web-1', names).includes('web-1'), false, 'never the name itself');
  });
});

describe('regions', () => {
  it('places and codes with a slip become region codes', () => {
    assert.deepEqual(regionsMeant('tokyo'), ['ap-northeast-1']);
    assert.deepEqual(regionsMeant('Tokyo'), ['ap-northeast-1']);
    assert.deepEqual(regionsMeant('東京'), ['ap-northeast-1']);
    assert.deepEqual(regionsMeant('osaka'), ['ap-northeast-3']);
    assert.deepEqual(regionsMeant('frankfurt'), ['eu-central-1']);
    assert.deepEqual(regionsMeant('apnortheast1'), ['ap-northeast-1']);
    assert.deepEqual(regionsMeant('atlantis'), []);
  });
  it("the table is the installed SDK's list of regions (its partitions data)", () => {
    const sdk = readFileSync(
      join(import.meta.dirname, '../../../node_modules/@aws-sdk/core/dist-es/submodules/client/util-endpoints/lib/aws/partitions.js'),
      'utf8',
    );
    const codes = [...sdk.matchAll(/^\s{16}"([a-z]+(?:-[a-z]+)+-\d+)": \{\n\s+"description": "([^"]+)"/gm)].map((m) => [m[1], m[2]]);
    assert.ok(codes.length > 30, `read ${codes.length} regions`);
    assert.deepEqual(KNOWN_REGIONS.map(([c, p]) => [c, p]).sort(), codes.sort());
    assert.ok(isKnownRegion('ap-northeast-1') && !isKnownRegion('ap-northeast-9'));
  });
});

describe('the login order', () => {
  const settings = { defaultUser: 'root', port: 22, identityFile: null, connectAs: { 'i-0123456789abcdef0': { user: 'mine', port: 2200 } } };
  it('flag > Connect as… > tag > Settings; the AMI only after', () => {
    const tags = { 'tagssh:user': 'deploy', 'tagssh:port': '2222' };
    assert.deepEqual(chosenUser({ instanceId: 'i-0123456789abcdef0', tags, flagUser: 'me', settings }), { user: 'me', source: 'flag' });
    assert.deepEqual(chosenUser({ instanceId: 'i-0123456789abcdef0', tags, settings }), { user: 'mine', source: 'instance' });
    assert.deepEqual(chosenUser({ instanceId: 'i-00000000000000001', tags, settings }), { user: 'deploy', source: 'tag' });
    assert.deepEqual(chosenUser({ instanceId: 'i-00000000000000001', tags: {}, settings }), { user: 'root', source: 'settings' });
    assert.equal(chosenUser({ tags: {}, settings: { ...settings, defaultUser: null } }), undefined);
    assert.equal(loginPort({ instanceId: 'i-0123456789abcdef0', tags, settings }), 2200);
    assert.equal(loginPort({ instanceId: 'i-00000000000000001', tags, settings }), 2222);
    assert.equal(loginPort({ instanceId: 'i-00000000000000001', tags: {}, settings }), 22);
  });
  it('user@NAME splits on a POSIX user only', () => {
    assert.deepEqual(splitUserAtName('root@web-1'), { user: 'root', name: 'web-1' });
    assert.deepEqual(splitUserAtName('ec2-user@踏み台'), { user: 'ec2-user', name: '踏み台' });
    assert.equal(splitUserAtName('web-1'), null);
    assert.equal(splitUserAtName('@web'), null);
    assert.equal(splitUserAtName('a b@web'), null);
  });
});
