import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLocale } from '../../../../../renderer/i18n/index.js';
import { progressText } from '../../../../../renderer/features/terminal/messages.js';
import { describeError } from '../../../../../renderer/i18n/errors.js';

// The terminal tab's words for what the backend reports: progress steps and errors, in English
// and Japanese, with the backend's own English only for what the catalogues do not know.

test('progress steps are worded by the app, EC2 states included; unknown steps keep the backend message', () => {
  setLocale('en');
  const step = { key: 'waitingState', params: { name: '"db-1" (i-0abc)', state: 'pending', seconds: 4 } };
  assert.equal(progressText('"db-1" (i-0abc) is pending… (4 s)', step), '"db-1" (i-0abc) is starting up… (4 s)');
  setLocale('ja');
  assert.equal(progressText('"db-1" (i-0abc) is pending… (4 s)', step), '"db-1" (i-0abc) は起動処理中です…（4 秒）');
  assert.equal(
    progressText('Connecting to ec2-user@10.0.0.5:22…', { key: 'connecting', params: { target: 'ec2-user@10.0.0.5:22' } }),
    'ec2-user@10.0.0.5:22 に接続しています…',
  );
  assert.equal(progressText('Resolving bastion b1…', { key: 'somethingNew', params: {} }), 'Resolving bastion b1…');
  assert.equal(progressText('Resolving bastion b1…'), 'Resolving bastion b1…');
  setLocale('en');
});

test('errors name the app’s controls, never CLI flags, and say which Settings field fixes them', () => {
  setLocale('en');
  const auth = describeError({
    code: 'AUTH_FAILED',
    message: 'web-1 refused the login as "root"; tried: agent.',
    hint: 'Check the login user (--user or the tagssh:user tag) and the key (--identity, or load it with ssh-add).',
  });
  assert.equal(auth.field, 'identityFile');
  assert.equal(auth.detail, 'web-1 refused the login as "root"; tried: agent.');
  assert.doesNotMatch(`${auth.title} ${auth.hint}`, /--/);
  const profile = describeError({
    code: 'NO_CREDENTIALS',
    message: 'AWS profile "x" does not exist.',
    hint: 'Check the name with `aws configure list-profiles`, or pass another --profile.',
  });
  assert.equal(profile.field, 'profile');
  assert.doesNotMatch(`${profile.title} ${profile.hint}`, /--profile/);
  assert.match(profile.hint ?? '', /Settings › AWS profile/);
  const noAddress = describeError({
    code: 'NOT_FOUND',
    message: 'x',
    hint: 'Connect … (--via HOST, or --private over a VPN).',
    details: {
      reason: 'no-public-address',
      instanceId: 'i-1',
      name: 'inner-1',
      region: 'eu-west-1',
      privateIp: '10.0.1.5',
      subnetId: 'subnet-1',
      started: false,
    },
  });
  assert.equal(noAddress.field, 'jumpHost');
  assert.match(noAddress.title, /inner-1 gets no public IP address/);
  assert.match(noAddress.hint ?? '', /10\.0\.1\.5/);
  assert.doesNotMatch(`${noAddress.title} ${noAddress.hint}`, /--via|--private/);
  // Details that do not fit their schema (a field missing) are not guessed at: the plain NOT_FOUND words, the backend's line kept.
  const partial = describeError({ code: 'NOT_FOUND', message: 'x has no public address.', details: { reason: 'no-public-address', instanceId: 'i-1' } });
  assert.equal(partial.detail, 'x has no public address.');
  assert.doesNotMatch(partial.title, /gets no public IP address/);
  // A code the catalogue does not know: the backend's own words.
  const other = describeError({ code: 'EXPORT_INVALID', message: 'The export is not valid.', hint: 'Fix it.' });
  assert.deepEqual(other, { title: 'The export is not valid.', hint: 'Fix it.', detail: null, field: null });
  setLocale('ja');
  assert.equal(describeError({ code: 'AUTH_FAILED', message: 'm' }).title, 'サーバーがログインを拒否しました。');
  setLocale('en');
});
