import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KNOWN_REGIONS } from '../../../../src/common/regions.js';
import { SERIAL_CONSOLE_ENDPOINTS, SERIAL_CONSOLE_FINGERPRINTS_RETRIEVED } from '../../../../src/common/serialConsole/endpoints.js';
import {
  LoginRefusedWatch,
  publishedEndpoint,
  serialConsoleHelps,
  serialConsoleUser,
  typeHasSerialConsole,
} from '../../../../src/common/serialConsole/rules.js';

describe('the published serial console table', () => {
  it('has one row per known region, a well-formed endpoint and a SHA256 fingerprint each, with its date', () => {
    assert.equal(SERIAL_CONSOLE_ENDPOINTS.length, 36);
    assert.match(SERIAL_CONSOLE_FINGERPRINTS_RETRIEVED, /^\d{4}-\d{2}-\d{2}$/);
    const known = new Set(KNOWN_REGIONS.map(([r]) => r));
    const seen = new Set<string>();
    for (const [region, host, fp] of SERIAL_CONSOLE_ENDPOINTS) {
      assert.ok(known.has(region), region);
      assert.ok(!seen.has(region), `${region} twice`);
      seen.add(region);
      assert.ok(host.includes(`.${region}.`), `${host} names ${region}`);
      assert.match(
        host,
        /^(serial-console\.ec2-instance-connect|ec2-serial-console)\.[a-z0-9-]+\.(aws|api\.aws|amazonaws\.com|api\.amazonwebservices\.com\.cn)$/,
      );
      assert.match(fp, /^SHA256:[A-Za-z0-9+/]{43}$/);
    }
    assert.equal(new Set(SERIAL_CONSOLE_ENDPOINTS.map(([, , fp]) => fp)).size, 36, 'every region has its own key');
  });

  it('answers the region’s endpoint on port 22, as published; nothing for a region the table lacks', () => {
    assert.deepEqual(publishedEndpoint('us-east-1'), {
      region: 'us-east-1',
      host: 'serial-console.ec2-instance-connect.us-east-1.aws',
      port: 22,
      fingerprint: 'SHA256:dXwn5ma/xadVMeBZGEru5l2gx+yI5LDiJaLUcz0FMmw',
    });
    assert.equal(publishedEndpoint('ap-northeast-1')?.fingerprint, 'SHA256:RQfsDCZTOfQawewTRDV1t9Em/HMrFQe+CRlIOT5um4k');
    assert.equal(publishedEndpoint('ap-east-2'), undefined);
    assert.equal(publishedEndpoint('nowhere-1'), undefined);
  });
});

describe('serial console rules', () => {
  it('logs in as INSTANCE_ID.port0', () => {
    assert.equal(serialConsoleUser('i-0123456789abcdef0'), 'i-0123456789abcdef0.port0');
  });

  it('only Nitro and bare metal types have a serial console', () => {
    assert.equal(typeHasSerialConsole({ hypervisor: 'nitro', bareMetal: false }), true);
    assert.equal(typeHasSerialConsole({ hypervisor: null, bareMetal: true }), true);
    assert.equal(typeHasSerialConsole({ hypervisor: 'xen', bareMetal: false }), false);
    assert.equal(typeHasSerialConsole({}), false);
  });

  it('sees "Login incorrect" split across chunks, once', () => {
    const w = new LoginRefusedWatch();
    assert.equal(w.feed('Password: \r\n\r\nLogin inc'), false);
    assert.equal(w.feed('orrect\r\n'), true);
    assert.equal(w.feed('\r\nlogin: '), false);
    assert.equal(w.feed('Login incorrect'), true);
  });

  it('offers the serial console when nothing reached sshd, not for a login or permission problem', () => {
    assert.equal(serialConsoleHelps({ code: 'CONNECT_FAILED', message: '' }), true);
    assert.equal(serialConsoleHelps({ code: 'TIMEOUT', message: '' }), true);
    assert.equal(serialConsoleHelps({ code: 'CONNECT_FAILED', message: '', details: { missing: 'sshd' } }), true);
    assert.equal(serialConsoleHelps({ code: 'NOT_FOUND', message: '', details: { missing: 'ssm-managed-node' } }), true);
    assert.equal(serialConsoleHelps({ code: 'INVALID_INPUT', message: '', details: { missing: 'jump-host' } }), false);
    assert.equal(serialConsoleHelps({ code: 'ACCESS_DENIED', message: '', details: { permission: 'ec2-instance-connect:OpenTunnel' } }), false);
    assert.equal(serialConsoleHelps({ code: 'AUTH_FAILED', message: '' }), false);
  });
});
