import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { setLocale, type Locale } from '../../../../renderer/i18n/index.js';
import { describeError } from '../../../../renderer/i18n/errors.js';
import { AppError, type ErrorCode } from '../../../../src/common/errors.js';
import type { ReasonDetails } from '../../../../src/common/errorDetails.js';
import { loginFailedError } from '../../../../src/node/ssh/authHandler.js';
import { notFound } from '../../../../src/node/aws/instances/lookup.js';

// The app's words for each reason an engine error names, in English and Japanese: the cause as
// the detail line with the untrusted values (names, addresses, AWS's own text) verbatim, never a
// CLI flag, and in Japanese no English sentence from the engine.

/** One error per reason, with the value its words must keep verbatim. */
const CASES: Array<[ErrorCode, ReasonDetails, string]> = [
  ['CREDENTIALS_EXPIRED', { reason: 'sso-expired', profile: 'dev<b>' }, 'dev<b>'],
  ['NO_CREDENTIALS', { reason: 'no-such-profile', profile: 'prod-x' }, 'prod-x'],
  ['NO_CREDENTIALS', { reason: 'no-credentials', profile: 'ops' }, 'ops'],
  [
    'NO_CREDENTIALS',
    { reason: 'credential-process-failed', profile: 'corp', exitCode: 3, signal: null, output: null, stderr: 'vault: token expired <x>' },
    'vault: token expired <x>',
  ],
  ['BAD_REGION', { reason: 'no-enabled-regions' }, ''],
  ['BAD_REGION', { reason: 'not-a-region', region: 'tokyo', meant: ['ap-northeast-1'] }, 'ap-northeast-1'],
  ['INVALID_INPUT', { reason: 'one-region', count: 2 }, ''],
  ['BAD_REGION', { reason: 'unknown-region', region: 'xx-nowhere-1', host: 'https://ec2.xx-nowhere-1.amazonaws.com' }, 'xx-nowhere-1'],
  ['BAD_REGION', { reason: 'region-not-enabled', region: 'me-south-1' }, 'me-south-1'],
  ['CREDENTIALS_EXPIRED', { reason: 'session-expired', awsCode: 'ExpiredToken', profile: 'dev', clockUnsure: false }, 'ExpiredToken'],
  ['CREDENTIALS_EXPIRED', { reason: 'session-expired', awsCode: 'RequestExpired', profile: 'dev', clockUnsure: true }, 'RequestExpired'],
  ['ACCESS_DENIED', { reason: 'credentials-rejected', awsCode: 'AuthFailure' }, 'AuthFailure'],
  ['ACCESS_DENIED', { reason: 'aws-denied', service: 'EC2', region: 'eu-west-1', text: 'You are not authorized <x>.' }, 'You are not authorized <x>.'],
  ['AWS_API', { reason: 'aws-error', service: 'SSM', region: 'eu-west-1', text: 'Odd: odd.' }, 'Odd: odd.'],
  ['AWS_API', { reason: 'aws-request-failed', region: 'eu-west-1', text: 'socket hang up' }, 'socket hang up'],
  ['ACCESS_DENIED', { reason: 'lacks-permission', permission: 'ec2:Odd', region: 'eu-west-1' }, 'ec2:Odd'],
  ['NETWORK', { reason: 'my-ip-lookup', origin: 'https://ip.example', addressFlag: '--ip', text: 'HTTP 500' }, 'https://ip.example'],
  ['NETWORK', { reason: 'my-ip-lookup', origin: 'https://ip.example', addressFlag: '--ip', text: null }, 'https://ip.example'],
  ['NOT_FOUND', { reason: 'no-such-name', ref: 'ｗｅｂ－９', suggestions: [], manyRegions: false, regions: ['ap-northeast-1'] }, 'ｗｅｂ－９'],
  ['NOT_FOUND', { reason: 'pick-not-candidate', ref: 'web-1', pick: 'i-0ccc', candidates: [] }, 'i-0ccc'],
  ['STOPPED', { reason: 'stopped', ref: 'db-1', candidates: [] }, 'db-1'],
  ['NOT_FOUND', { reason: 'no-public-ip', label: 'app (i-0aaa)', privateIp: '10.0.0.9' }, '10.0.0.9'],
  ['NOT_FOUND', { reason: 'nothing-to-export' }, ''],
  ['INVALID_INPUT', { reason: 'export-no-names' }, ''],
  ['NOT_FOUND', { reason: 'export-no-such-name', ref: 'web-9', suggestions: ['web-1'] }, 'web-1'],
  ['INVALID_INPUT', { reason: 'port-tag', value: 'ssh;rm' }, 'ssh;rm'],
  ['INVALID_INPUT', { reason: 'jump-loop', label: 'deep', maxHops: 8 }, 'deep'],
  ['INVALID_INPUT', { reason: 'key-file', path: '/home/me/.ssh/nope.pem' }, '/home/me/.ssh/nope.pem'],
  ['TIMEOUT', { reason: 'handshake-timeout', at: 'web-1 (10.0.0.1:22)', seconds: 20 }, 'web-1 (10.0.0.1:22)'],
  ['CONNECT_FAILED', { reason: 'ssh-refused', at: 'web-1 (10.0.0.1:2222)', port: 2222 }, 'web-1 (10.0.0.1:2222)'],
  ['TIMEOUT', { reason: 'ssh-timeout', at: 'web-1 (10.0.0.1:22)' }, 'web-1 (10.0.0.1:22)'],
  ['CONNECT_FAILED', { reason: 'ssh-unreachable', at: 'web-1 (10.0.0.1:22)', netCode: 'EHOSTUNREACH' }, 'EHOSTUNREACH'],
  ['CONNECT_FAILED', { reason: 'ssh-failed', at: 'web-1 (10.0.0.1:22)', text: 'boom\u001b[2J' }, 'boom\u001b[2J'],
  ['INVALID_INPUT', { reason: 'transport-both' }, ''],
];

/** The words the person reads: the title, then the detail line. */
function cause(code: ErrorCode, d: ReasonDetails, locale: Locale): { title: string; detail: string; hint: string } {
  setLocale(locale);
  const w = describeError(new AppError(code, 'The engine’s English message.', undefined, d).toJSON());
  return { title: w.title, detail: w.detail ?? '', hint: w.hint ?? '' };
}

afterEach(() => setLocale('en'));

describe('the app’s words for each reason', () => {
  for (const [code, d, verbatim] of CASES) {
    it(`${d.reason} (${code}): en and ja say the cause, keep ${verbatim || 'no value'} verbatim, name no flag`, () => {
      const en = cause(code, d, 'en');
      const ja = cause(code, d, 'ja');
      const enText = `${en.title} ${en.detail}`;
      const jaText = `${ja.title} ${ja.detail}`;
      assert.doesNotMatch(enText, /engine’s English/, 'the reason is worded, not the engine’s message shown');
      assert.doesNotMatch(jaText, /engine’s English/);
      for (const text of [enText, jaText, en.hint, ja.hint]) assert.doesNotMatch(text, /(^|\s)--[a-z]/, 'no CLI flag');
      if (verbatim) {
        assert.ok(enText.includes(verbatim), `${enText} keeps ${verbatim}`);
        assert.ok(jaText.includes(verbatim), `${jaText} keeps ${verbatim}`);
      }
      assert.match(jaText, /[\u3040-\u30ff\u4e00-\u9fff]/, 'the Japanese words are Japanese');
      assert.notEqual(ja.detail || ja.title, en.detail || en.title);
    });
  }

  it('an unknown Name is quoted, so a Name with spaces or punctuation reads as one', () => {
    const d: ReasonDetails = { reason: 'no-such-name', ref: 'db primary', suggestions: [], manyRegions: false, regions: [] };
    assert.match(cause('NOT_FOUND', d, 'en').detail, /“db primary”/);
    assert.match(cause('NOT_FOUND', d, 'ja').detail, /「db primary」/);
  });

  it('an unknown Name says which region(s) were searched, so a person in the wrong one can tell', () => {
    const d = (regions: string[], suggestions: string[] = []): ReasonDetails => ({
      reason: 'no-such-name',
      ref: 'db-1',
      suggestions,
      manyRegions: regions.length > 3,
      regions,
    });
    assert.equal(cause('NOT_FOUND', d(['eu-west-1']), 'en').detail, 'No instance is named “db-1” in eu-west-1.');
    assert.equal(cause('NOT_FOUND', d(['eu-west-1']), 'ja').detail, 'リージョン eu-west-1 に「db-1」という名前のインスタンスはありません。');
    assert.equal(cause('NOT_FOUND', d(['eu-west-1', 'ap-northeast-1']), 'en').detail, 'No instance is named “db-1” in eu-west-1, ap-northeast-1.');
    assert.equal(
      cause('NOT_FOUND', d(['eu-west-1', 'ap-northeast-1']), 'ja').detail,
      'リージョン eu-west-1、ap-northeast-1 に「db-1」という名前のインスタンスはありません。',
    );
    // Every enabled region: counted, as the CLI's message counts them.
    const all = ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2', 'eu-west-1'];
    assert.equal(cause('NOT_FOUND', d(all), 'en').detail, 'No instance is named “db-1” in any of the 5 regions searched.');
    assert.equal(cause('NOT_FOUND', d(all), 'ja').detail, '検索した 5 のリージョンのどこにも「db-1」という名前のインスタンスはありません。');
    // The engine's own error carries the regions it searched.
    setLocale('ja');
    assert.equal(
      describeError(notFound('db-1', {}, ['ap-northeast-1']).toJSON()).detail,
      'リージョン ap-northeast-1 に「db-1」という名前のインスタンスはありません。',
    );
    // With a Name it was probably meant to be, the region still comes first.
    assert.equal(cause('NOT_FOUND', d(['eu-west-1'], ['db-01']), 'en').detail, 'No instance is named “db-1” in eu-west-1. Did you mean db-01?');
    assert.equal(
      cause('NOT_FOUND', d(['eu-west-1'], ['db-01']), 'ja').detail,
      'リージョン eu-west-1 に「db-1」という名前のインスタンスはありません。 db-01 のことですか？',
    );
  });

  it('a refused login: the detail names the machine, the user and what was tried, in each language', () => {
    const err = loginFailedError(
      { user: 'ec2-user', userSource: 'settings', label: 'web-1' },
      { attempts: [{ text: '/keys/id_wrong', method: 'key', path: '/keys/id_wrong', outcome: 'refused' }], pushed: false, declined: false },
    ).toJSON();
    setLocale('en');
    assert.equal(describeError(err).detail, 'web-1 refused the login as “ec2-user”; tried: /keys/id_wrong.');
    setLocale('ja');
    assert.equal(describeError(err).detail, 'web-1 に「ec2-user」としてログインできませんでした。試したもの: /keys/id_wrong');
  });

  it('a failing credential_process: the profile, how it failed and its stderr, in each language; the hint and Settings field', () => {
    const failed = (d: Partial<Extract<ReasonDetails, { reason: 'credential-process-failed' }>>, locale: Locale) =>
      cause('NO_CREDENTIALS', { reason: 'credential-process-failed', profile: 'corp', exitCode: 3, signal: null, output: null, stderr: '', ...d }, locale);
    assert.equal(failed({ stderr: 'login lapsed' }, 'en').detail, 'The credential_process of AWS profile “corp” failed (exit status 3): login lapsed.');
    assert.equal(failed({}, 'en').detail, 'The credential_process of AWS profile “corp” failed (exit status 3), printing nothing on stderr.');
    assert.equal(
      failed({ exitCode: null, signal: 'SIGTERM' }, 'en').detail,
      'The credential_process of AWS profile “corp” was killed by SIGTERM, printing nothing on stderr.',
    );
    assert.equal(failed({ exitCode: 0, output: 'invalid-json' }, 'en').detail, 'The credential_process of AWS profile “corp” printed no JSON credentials.');
    assert.match(failed({}, 'en').hint, /credential_process command yourself .* Settings › AWS profile/);
    assert.equal(
      failed({ stderr: 'login lapsed' }, 'ja').detail,
      'AWS プロファイル「corp」の credential_process が失敗しました（終了ステータス 3）（標準エラー出力: login lapsed）。',
    );
    assert.equal(failed({ exitCode: 0, output: 'expired' }, 'ja').detail, 'AWS プロファイル「corp」の credential_process が期限切れの認証情報を出力しました。');
    setLocale('en');
    const err = new AppError('NO_CREDENTIALS', 'x', undefined, {
      reason: 'credential-process-failed',
      profile: 'corp',
      exitCode: 1,
      signal: null,
      output: null,
      stderr: '',
    });
    assert.equal(describeError(err.toJSON()).field, 'profile');
  });

  it('a reason the app does not know keeps the engine’s message as the detail', () => {
    setLocale('ja');
    const w = describeError(new AppError('CONNECT_FAILED', 'Something new.', undefined, { reason: 'not-yet-known' }).toJSON());
    assert.equal(w.detail, 'Something new.');
  });
});
