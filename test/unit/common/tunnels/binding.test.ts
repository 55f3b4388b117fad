import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bindableTags, bindingIsComplete, carriesTag, instancesFor, runsShareListener, tagText } from '../../../../src/common/tunnels/binding.js';
import { SavedTunnelSchema, tunnelCalls } from '../../../../src/common/tunnels/contract.js';

// What a saved tunnel is bound to (one instance, or every instance with a tag) and the contract's
// check that it is exactly one of the two.

const web1 = { id: 'i-0123456789abcdef0', region: 'ap-northeast-1', tags: { Name: 'web-1', env: 'staging', 'tagssh:user': 'ec2-user' } };
const web2 = { id: 'i-0123456789abcdef1', region: 'ap-northeast-1', tags: { Name: 'web-2', env: 'staging' } };
const db = { id: 'i-0123456789abcdef2', region: 'us-east-1', tags: { Name: 'db', env: 'Staging' } };
const env = { key: 'env', value: 'staging' };

describe('tunnel binding', () => {
  it('matches a tag by exact key and value', () => {
    assert.equal(carriesTag(web1, env), true);
    assert.equal(carriesTag(db, env), false, 'values are case-sensitive, as in EC2');
    assert.equal(carriesTag(web1, { key: 'Env', value: 'staging' }), false);
    assert.equal(carriesTag({ tags: {} }, { key: 'toString', value: '' }), false, 'no inherited keys');
    assert.equal(tagText(env), 'env=staging');
  });

  it('lists a tag tunnel under every instance with the tag, an instance tunnel under its own', () => {
    assert.deepEqual(
      instancesFor({ tag: env }, [web1, web2, db]).map((i) => i.id),
      [web1.id, web2.id],
    );
    assert.deepEqual(instancesFor({ instanceId: db.id, region: 'us-east-1' }, [web1, web2, db]), [db]);
    assert.deepEqual(instancesFor({ instanceId: db.id, region: 'eu-west-1' }, [web1, web2, db]), [], 'same id in another region is another instance');
  });

  it('offers the instance’s own tags to bind to, not TagSSH’s or AWS’s housekeeping tags', () => {
    assert.deepEqual(bindableTags({ tags: { ...web1.tags, 'aws:cloudformation:stack-name': 's' } }), [
      { key: 'env', value: 'staging' },
      { key: 'Name', value: 'web-1' },
    ]);
  });

  it('a fixed local port cannot serve two instances; any-free-port and remote forwards can', () => {
    assert.equal(runsShareListener({ kind: 'local', port: 8080 }), true);
    assert.equal(runsShareListener({ kind: 'dynamic', port: 1080 }), true);
    assert.equal(runsShareListener({ kind: 'local', port: 0 }), false);
    assert.equal(runsShareListener({ kind: 'remote', port: 9000 }), false);
  });

  it('is exactly one instance (with its region) or one tag', () => {
    assert.equal(bindingIsComplete({ instanceId: web1.id, region: web1.region }), true);
    assert.equal(bindingIsComplete({ tag: env }), true);
    assert.equal(bindingIsComplete({}), false);
    assert.equal(bindingIsComplete({ instanceId: web1.id }), false);
    assert.equal(bindingIsComplete({ tag: env, instanceId: web1.id, region: web1.region }), false);
  });
});

describe('the saved-tunnel schema', () => {
  const base = { id: 'abcdef-1', label: 'x', kind: 'dynamic', port: 0 };
  it('takes a version-1 instance tunnel unchanged and a tag tunnel', () => {
    const v1 = { ...base, instanceId: web1.id, region: web1.region };
    assert.deepEqual(SavedTunnelSchema.parse(v1), v1);
    assert.deepEqual(SavedTunnelSchema.parse({ ...base, tag: env }), { ...base, tag: env });
  });

  it('refuses both bindings, none, and tags EC2 would not have', () => {
    assert.match(
      SavedTunnelSchema.safeParse({ ...base, tag: env, instanceId: web1.id, region: web1.region }).error?.message ?? '',
      /one instance \(id and region\) or to one tag/,
    );
    assert.equal(SavedTunnelSchema.safeParse(base).success, false);
    assert.equal(SavedTunnelSchema.safeParse({ ...base, tag: { key: '', value: 'x' } }).success, false);
    assert.equal(SavedTunnelSchema.safeParse({ ...base, tag: { key: 'k'.repeat(129), value: 'x' } }).success, false);
    const save = tunnelCalls['tunnels.save'].input;
    assert.equal(save.safeParse({ label: 'x', kind: 'dynamic', port: 0, tag: env }).success, true, 'a new tag tunnel (no id yet)');
    assert.equal(save.safeParse({ label: 'x', kind: 'dynamic', port: 0 }).success, false);
  });
});
