import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLocale } from '../../../../renderer/i18n/index.js';
import { describeError } from '../../../../renderer/i18n/errors.js';
import { AppError } from '../../../../src/common/errors.js';
import type { Instance } from '../../../../src/common/model/instance.js';
import { instanceOf } from '../../../support/instance.js';
import { chooseTransport, type TransportProbes } from '../../../../src/node/transport/choose.js';
import { noEndpointError } from '../../../../src/node/transport/missing.js';
import { sshdUnreachable } from '../../../../src/node/ssm/client.js';

// The app's words for the private-instance transport errors, built by the engine's own
// functions: each names the missing piece and the app's control that helps, never a CLI flag.

const instance: Instance = instanceOf({
  id: 'i-0abc',
  name: 'app-1',
  privateIp: '10.0.1.5',
  vpcId: 'vpc-0123',
  subnetId: 'subnet-0123',
});
const nothing: TransportProbes = { findEndpoint: async () => null, isManagedNode: async () => false, openSsmSocket: () => Promise.reject(new Error('unused')) };

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('no error');
}

test('no way in, no endpoint, not a managed node, no jump host: the app names the piece and Settings › Jump host', async () => {
  setLocale('en');
  const none = describeError((await errorOf(chooseTransport({ instance, choice: 'auto', jumpHosts: [], port: 22, probes: nothing }))).toJSON());
  assert.equal(none.title, 'This instance has no public address, and TagSSH found no other way in.');
  assert.match(none.detail!, /no EC2 Instance Connect Endpoint in vpc-0123, not an SSM managed node/);
  assert.equal(none.field, 'jumpHost');
  const endpoint = describeError(noEndpointError(instance).toJSON());
  assert.equal(endpoint.title, 'There is no EC2 Instance Connect Endpoint in this instance’s VPC (vpc-0123).');
  const ssm = describeError((await errorOf(chooseTransport({ instance, choice: 'ssm', jumpHosts: [], port: 22, probes: nothing }))).toJSON());
  assert.equal(ssm.title, 'Systems Manager does not list this instance as a managed node.');
  const jump = describeError((await errorOf(chooseTransport({ instance, choice: 'jump', jumpHosts: [], port: 22, probes: nothing }))).toJSON());
  assert.equal(jump.field, 'jumpHost');
  for (const w of [none, endpoint, ssm, jump]) assert.doesNotMatch(`${w.title} ${w.hint}`, /--\w/, 'no CLI flag in the app');

  setLocale('ja');
  assert.equal(
    describeError(noEndpointError(instance).toJSON()).title,
    'このインスタンスの VPC (vpc-0123) には EC2 Instance Connect エンドポイントがありません。',
  );
  assert.match(
    describeError(new AppError('ACCESS_DENIED', 'x', 'y', { permission: 'ec2-instance-connect:SendSSHPublicKey' }).toJSON()).title,
    /ec2-instance-connect:SendSSHPublicKey の権限がありません/,
  );
  setLocale('en');
});

test('a missing permission is named, with the profile setting as the way out; other errors keep their words', () => {
  setLocale('en');
  const w = describeError(
    new AppError('ACCESS_DENIED', 'Your AWS role lacks ec2-instance-connect:OpenTunnel in us-east-1.', 'cli words', {
      permission: 'ec2-instance-connect:OpenTunnel',
    }).toJSON(),
  );
  assert.equal(w.title, 'Your AWS role lacks ec2-instance-connect:OpenTunnel.');
  assert.equal(w.field, 'profile');
  assert.equal(describeError(new AppError('ACCESS_DENIED', 'denied').toJSON()).title, 'AWS denied the request.');
});

test("Session Manager could not reach sshd: the app says where to look, in both languages, the agent's words kept as the detail", () => {
  setLocale('en');
  const w = describeError(sshdUnreachable('22', 'Unable to connect to specified port').toJSON());
  assert.equal(w.title, 'Session Manager reached the instance, but its agent could not connect to sshd there.');
  assert.match(w.hint ?? '', /sshd is running and listens on the SSH port/);
  assert.match(w.detail ?? '', /\(port 22\)\. The agent said: Unable to connect to specified port/);
  assert.doesNotMatch(`${w.title} ${w.hint}`, /--\w/);
  setLocale('ja');
  assert.match(describeError(sshdUnreachable('22', '').toJSON()).title, /sshd に接続できませんでした/);
  setLocale('en');
});
