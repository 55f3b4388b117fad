import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lookupUrlProblem } from '../../../src/common/lookupUrl.js';
import { SettingsSchema } from '../../../src/common/model/settings.js';

describe('the "my public IP" lookup URL', () => {
  it('must be https; plain http only to loopback', () => {
    for (const ok of [
      'https://checkip.amazonaws.com',
      'HTTPS://ip.example:8443/plain?x=1',
      'http://127.0.0.1:8080/',
      'http://127.9.8.7/',
      'http://localhost:3000',
      'http://[::1]:80/ip',
    ])
      assert.equal(lookupUrlProblem(ok), null, ok);
    for (const bad of [
      'http://checkip.amazonaws.com',
      'http://127.0.0.1.evil.example/',
      'http://127.0.0.1@evil.example/',
      'http://[::2]/',
      'ftp://127.0.0.1/',
      'http://localhost.evil/',
    ])
      assert.equal(lookupUrlProblem(bad), 'not-https', bad);
    for (const junk of ['checkip.example', 'https://', 'https:///x', '']) assert.equal(lookupUrlProblem(junk), 'not-a-url', junk);
  });

  it('the myIpUrl setting refuses plain http to anywhere else', () => {
    assert.equal(SettingsSchema.safeParse({ myIpUrl: 'http://checkip.amazonaws.com' }).success, false);
    assert.equal(SettingsSchema.safeParse({ myIpUrl: 'https://checkip.amazonaws.com' }).success, true);
    assert.equal(SettingsSchema.safeParse({ myIpUrl: 'http://127.0.0.1:9/' }).success, true);
  });
});
