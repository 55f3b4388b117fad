import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detailsOf } from '../../../src/common/errorDetails.js';
import { AppError } from '../../../src/common/errors.js';
import type { Instance } from '../../../src/common/model/instance.js';
import { instanceOf } from '../../support/instance.js';
import { decideHostKey } from '../../../src/node/ssh/hostKeys.js';
import { KnownHostsStore } from '../../../src/node/ssh/knownHosts.js';
import { ambiguous } from '../../../src/node/aws/instances/lookup.js';
import { noPublicAddressError } from '../../../src/node/aws/instances/publicAddress.js';
import { sha256Fingerprint } from '../../../src/node/ssh/fingerprint.js';
import { loginFailedError } from '../../../src/node/ssh/authHandler.js';
import { ed25519KeyBlob } from '../../support/sshKeyBlob.js';

// Each code's details schema accepts what the backend really produces (built by the real
// functions, then sent through JSON as over the wire) and refuses anything else without throwing.

const dir = mkdtempSync(join(tmpdir(), 'tagssh-errdetails-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const wire = (e: AppError | undefined) => JSON.parse(JSON.stringify(e)) as ReturnType<AppError['toJSON']>;

function instance(over: Partial<Instance>): Instance {
  return instanceOf({
    id: 'i-0123456789abcdef0',
    region: 'eu-west-1',
    name: 'web',
    az: 'eu-west-1a',
    privateIp: '10.0.0.5',
    vpcId: 'vpc-1',
    subnetId: 'subnet-1',
    launchTime: '2024-05-01T10:00:00.000Z',
    tags: { Name: 'web' },
    ...over,
  });
}

describe('detailsOf', () => {
  const store = new KnownHostsStore(join(dir, 'known_hosts'));
  const subject = { host: '127.0.0.1', port: 22, label: 'web', instanceId: 'i-0123456789abcdef0', region: 'eu-west-1' };

  it('reads HOST_KEY_UNKNOWN and HOST_KEY_CHANGED as decideHostKey produces them', async () => {
    const first = ed25519KeyBlob();
    const unknown = await decideHostKey(subject, first, { store, consoleOutput: null });
    assert.equal(unknown.error?.code, 'HOST_KEY_UNKNOWN');
    const u = detailsOf(wire(unknown.error), 'HOST_KEY_UNKNOWN');
    assert.equal(u?.fingerprint, sha256Fingerprint(first));
    assert.equal(u?.consoleMatch, null);
    assert.equal(u?.label, 'web');

    await decideHostKey({ ...subject, acceptNewHostKey: true }, first, { store, consoleOutput: null });
    const second = ed25519KeyBlob();
    const changed = await decideHostKey(subject, second, { store, consoleOutput: null });
    assert.deepEqual(detailsOf(wire(changed.error), 'HOST_KEY_CHANGED'), {
      instanceId: subject.instanceId,
      label: 'web',
      oldFingerprint: sha256Fingerprint(first),
      newFingerprint: sha256Fingerprint(second),
    });
    // Asked for the wrong code, the reader answers nothing rather than a mis-typed object.
    assert.equal(detailsOf(wire(changed.error), 'HOST_KEY_UNKNOWN'), undefined);
  });

  it('reads the candidates of an ambiguous name as lookup produces them', () => {
    const err = ambiguous('web', [instance({}), instance({ id: 'i-0fedcba9876543210', az: null, launchTime: null })], 'running');
    assert.deepEqual(
      detailsOf(wire(err), 'AMBIGUOUS')?.candidates.map((c) => c.id),
      ['i-0123456789abcdef0', 'i-0fedcba9876543210'],
    );
  });

  it('reads the no-public-address details, both before a start and while running', () => {
    const before = detailsOf(wire(noPublicAddressError(instance({ state: 'stopped' }), 'subnet')), 'NOT_FOUND');
    assert.equal(before?.started, false);
    assert.equal(before?.subnetId, 'subnet-1');
    const running = detailsOf(wire(noPublicAddressError(instance({ name: null, privateIp: null }), 'running-without')), 'NOT_FOUND');
    assert.equal(running?.started, true);
    assert.equal(running?.privateIp, null);
    assert.equal(running?.name, null);
  });

  it('reads what a refused login tried, as the SSH layer reports it (also after an Instance Connect key)', () => {
    const refused = { attempts: [{ text: 'agent', method: 'agent' as const, outcome: 'refused' as const }], pushed: false, declined: false };
    assert.deepEqual(detailsOf(wire(loginFailedError({ user: 'ubuntu', label: 'web', userSource: 'ami' }, refused)), 'AUTH_FAILED'), {
      user: 'ubuntu',
      tried: ['agent'],
      label: 'web',
      cause: 'refused',
      userSource: 'ami',
    });
    const pushed = {
      attempts: [{ text: 'a key pushed with EC2 Instance Connect', method: 'instance-connect' as const, outcome: 'refused' as const }],
      pushed: true,
      declined: false,
    };
    assert.deepEqual(detailsOf(wire(loginFailedError({ user: 'ec2-user', label: 'web' }, pushed)), 'AUTH_FAILED'), {
      user: 'ec2-user',
      tried: ['a key pushed with EC2 Instance Connect'],
      label: 'web',
      cause: 'instance-connect-refused',
      instanceConnect: 'pushed',
    });
    assert.equal(
      detailsOf(wire(loginFailedError({ user: 'ubuntu', label: 'web' }, { attempts: [], pushed: false, declined: false })), 'HOST_KEY_UNKNOWN'),
      undefined,
    );
  });

  it('answers undefined, never throws, for missing or malformed details', () => {
    const bad: Array<[ConstructorParameters<typeof AppError>[0], unknown]> = [
      ['HOST_KEY_UNKNOWN', undefined],
      ['HOST_KEY_UNKNOWN', { label: 'web', fingerprint: 'SHA256:x', keyType: 'ssh-ed25519', consoleMatch: 'yes', instanceId: null }],
      ['HOST_KEY_CHANGED', { instanceId: null, label: 'web', oldFingerprint: 1, newFingerprint: 'SHA256:y' }],
      ['AMBIGUOUS', { candidates: 'i-1, i-2' }],
      ['AMBIGUOUS', null],
      ['NOT_FOUND', { reason: 'no-such-name' }],
      ['NOT_FOUND', 'no-public-address'],
      ['AUTH_FAILED', { user: 'ubuntu', tried: 'agent' }],
    ];
    for (const [code, details] of bad) {
      const err = new AppError(code, 'm', undefined, details).toJSON();
      assert.equal(detailsOf(err, code as 'AMBIGUOUS'), undefined, `${code} ${JSON.stringify(details)}`);
    }
    assert.equal(detailsOf(undefined, 'AMBIGUOUS'), undefined);
  });
});
