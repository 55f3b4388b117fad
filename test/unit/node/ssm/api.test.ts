import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ssmAppError } from '../../../../src/node/ssm/api.js';
import { checkedStreamUrl } from '../../../../src/node/ssm/client.js';
import { AppError } from '../../../../src/common/errors.js';

// One line per SSM failure, naming the missing piece; the stream URL the token may go to.

const o = { instanceId: 'i-0123456789abcdef0', region: 'eu-west-1' };
const sdk = (name: string, message = name, status = 400) => Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

test('AccessDenied names the action and the instance', () => {
  const e = ssmAppError(sdk('AccessDeniedException', 'User: arn:… is not authorized'), o, 'StartSession');
  assert.equal(e.code, 'ACCESS_DENIED');
  assert.equal(e.message, 'Your AWS identity lacks ssm:StartSession on i-0123456789abcdef0 (AccessDenied).');
  assert.match(e.hint ?? '', /ssm:StartSession/);
});

test('TargetNotConnected and InvalidInstanceId: not a managed node, with what to fix', () => {
  for (const name of ['TargetNotConnected', 'InvalidInstanceId']) {
    const e = ssmAppError(sdk(name), o, 'StartSession');
    assert.equal(e.code, 'CONNECT_FAILED');
    assert.match(e.message, /^i-0123456789abcdef0 is not an SSM managed node/);
    assert.match(e.hint ?? '', /AmazonSSMManagedInstanceCore/);
  }
});

test('expired or unknown credentials, network failures, anything else', () => {
  assert.equal(ssmAppError(sdk('ExpiredTokenException'), o, 'StartSession').code, 'CREDENTIALS_EXPIRED');
  assert.equal(ssmAppError(sdk('UnrecognizedClientException'), o, 'StartSession').code, 'CREDENTIALS_EXPIRED');
  const net = ssmAppError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), o, 'DescribeInstanceInformation');
  assert.equal(net.code, 'NETWORK');
  assert.match(net.message, /Could not reach Systems Manager in eu-west-1/);
  const other = ssmAppError(sdk('InternalServerError', 'boom', 500), o, 'StartSession');
  assert.equal(other.code, 'AWS_API');
  assert.equal(other.message, 'Systems Manager StartSession failed for i-0123456789abcdef0: boom');
  const mine = new AppError('TIMEOUT', 'already worded');
  assert.equal(ssmAppError(mine, o, 'StartSession'), mine);
});

test('the session token goes only to wss://, or ws:// on this machine', () => {
  assert.equal(checkedStreamUrl('wss://ssmmessages.eu-west-1.amazonaws.com/v1/data-channel/s?role=publish_subscribe').protocol, 'wss:');
  for (const ok of ['ws://127.0.0.1:8080/x', 'ws://localhost/x', 'ws://[::1]:9/x']) assert.equal(checkedStreamUrl(ok).protocol, 'ws:');
  for (const bad of ['ws://ssmmessages.eu-west-1.amazonaws.com/x', 'https://example.com/x', 'ws://10.0.0.1/x']) {
    assert.throws(
      () => checkedStreamUrl(bad),
      (e: AppError) => e.code === 'AWS_API' && /not wss:\/\//.test(e.message),
      bad,
    );
  }
  assert.throws(
    () => checkedStreamUrl('not a url'),
    (e: AppError) => e.code === 'AWS_API' && /not a URL/.test(e.message),
  );
});
