import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tagJumpVerdict } from '../../../src/common/jumpTag.js';
import { SettingsSchema } from '../../../src/common/model/settings.js';

describe('tagJumpVerdict: which jump hosts a tagssh:jump tag may name', () => {
  it('an instance Name or id is accepted (it resolves within the account and regions in use)', () => {
    for (const spec of ['bastion', 'i-0123456789abcdef0', 'my bastion']) assert.deepEqual(tagJumpVerdict(spec, []), { ok: true, kind: 'instance' }, spec);
  });

  it('an outside host is refused unless the allow-list names it (host: any port; host:port: that port)', () => {
    assert.deepEqual(tagJumpVerdict('ec2-user@anywhere.example', []), { ok: false, host: 'anywhere.example', port: 22 });
    assert.deepEqual(tagJumpVerdict('203.0.113.5:2200', ['203.0.113.5:22']), { ok: false, host: '203.0.113.5', port: 2200 });
    assert.deepEqual(tagJumpVerdict('ec2-user@Anywhere.Example', ['anywhere.example']), { ok: true, kind: 'allowed-host' });
    assert.deepEqual(tagJumpVerdict('admin@203.0.113.5:2200', ['203.0.113.5:2200']), { ok: true, kind: 'allowed-host' });
    assert.deepEqual(tagJumpVerdict('[2001:db8::1]:2200', ['[2001:db8::1]:2200']), { ok: true, kind: 'allowed-host' });
    assert.deepEqual(tagJumpVerdict('admin@[2001:db8::1]', ['2001:db8::2']), { ok: false, host: '2001:db8::1', port: 22 });
    // A suffix or a prefix is not the host.
    assert.equal(tagJumpVerdict('x@evil-anywhere.example', ['anywhere.example']).ok, false);
    assert.equal(tagJumpVerdict('x@anywhere.example.evil', ['anywhere.example']).ok, false);
  });

  it('Settings take host or host:port entries and refuse anything else', () => {
    assert.deepEqual(SettingsSchema.parse({}).tagJumpHosts, []);
    assert.deepEqual(SettingsSchema.parse({ tagJumpHosts: ['bastion.example', '10.0.0.5:2222', '[2001:db8::1]:22'] }).tagJumpHosts, [
      'bastion.example',
      '10.0.0.5:2222',
      '[2001:db8::1]:22',
    ]);
    for (const bad of ['user@host', 'a b', '*.example', 'host:port', '']) assert.equal(SettingsSchema.safeParse({ tagJumpHosts: [bad] }).success, false, bad);
  });
});
