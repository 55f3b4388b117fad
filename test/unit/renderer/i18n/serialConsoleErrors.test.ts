import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLocale } from '../../../../renderer/i18n/index.js';
import { describeError } from '../../../../renderer/i18n/errors.js';
import { disabledError, unsupportedTypeError } from '../../../../src/node/serialConsole/api.js';
import { serialEndpointFor, unknownRegionError } from '../../../../src/node/serialConsole/endpoint.js';
import { hostKeyMismatch } from '../../../../src/node/serialConsole/connect.js';

// The app's words for the serial console's errors, built by the engine's own functions: in
// English and Japanese, naming AWS's console and the app's controls, never a CLI flag.

const w = { instanceId: 'i-0123456789abcdef0', region: 'eu-west-1' };
const errors = () => [
  disabledError(w),
  unsupportedTypeError(w, 't2.micro'),
  unknownRegionError('ap-east-2', w.instanceId),
  hostKeyMismatch(serialEndpointFor('eu-west-1', w.instanceId, {}), w.instanceId, 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
];

test('each serial console error is worded by the app, in English, with what to do and none of TagSSH’s CLI words', () => {
  setLocale('en');
  const [disabled, type, region, mismatch] = errors().map((e) => describeError(e.toJSON()));
  assert.equal(disabled!.title, 'EC2 Serial Console access is not enabled for this AWS account in eu-west-1.');
  assert.match(disabled!.hint!, /EC2 Serial Console › Manage › Allow/);
  assert.equal(type!.title, 'This instance type (t2.micro) has no EC2 Serial Console.');
  assert.match(type!.hint!, /Nitro System/);
  assert.equal(region!.title, 'TagSSH has no published serial console host key for ap-east-2, so it cannot check that endpoint.');
  assert.equal(mismatch!.title, 'Refused: the serial console endpoint’s host key is not the one AWS publishes for eu-west-1.');
  assert.match(mismatch!.detail!, /SHA256:h2AaGAWO4Hathhtm6ezs3Bj7udgUxi2qTrHjZAwCW6E/);
  // The enable step may quote the AWS CLI (an administrator's tool); never TagSSH's own command or flags.
  for (const words of [disabled, type, region, mismatch])
    assert.doesNotMatch(`${words!.title} ${words!.hint}`, /tagssh |--(profile|pick|private|eic|transport|via)\b/);
});

test('the same errors in Japanese', () => {
  setLocale('ja');
  try {
    const [disabled, type, region, mismatch] = errors().map((e) => describeError(e.toJSON()));
    assert.equal(disabled!.title, 'この AWS アカウントでは eu-west-1 の EC2 シリアルコンソールへのアクセスが有効になっていません。');
    assert.match(disabled!.hint!, /EC2 シリアルコンソール › 管理 › 許可/);
    assert.equal(type!.title, 'このインスタンスタイプ（t2.micro）には EC2 シリアルコンソールがありません。');
    assert.match(region!.title, /ap-east-2 のシリアルコンソールの公開ホストキーがない/);
    assert.match(mismatch!.title, /^拒否しました/);
  } finally {
    setLocale('en');
  }
});
