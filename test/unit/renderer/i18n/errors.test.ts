import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { setLocale, type Locale } from '../../../../renderer/i18n/index.js';
import { describeError } from '../../../../renderer/i18n/errors.js';
import { t as instanceWords } from '../../../../renderer/features/instances/messages.js';
import { t as settingsWords } from '../../../../renderer/features/settings/messages.js';
import type { UserSource } from '../../../../src/common/login.js';
import { loginFailedError } from '../../../../src/node/ssh/authHandler.js';

// The app's words for a refused login, as the engine reports it (loginFailedError): which of the
// user and the key it leads with depends on who chose the user.

/** web-1 refused the key /keys/id_team for a user chosen by `userSource`. */
function refused(userSource: UserSource, locale: Locale) {
  setLocale(locale);
  const err = loginFailedError(
    { user: 'ec2-user', userSource, label: 'web-1', instanceId: 'i-0abc' },
    { attempts: [{ text: '/keys/id_team', method: 'key', path: '/keys/id_team', outcome: 'refused' }], pushed: false, declined: false },
  );
  const words = describeError(err.toJSON());
  return { ...words, connectAs: instanceWords('connectAs'), defaultUser: settingsWords('defaultUser') };
}

afterEach(() => setLocale('en'));

describe('a refused login', () => {
  it('for a user guessed from the AMI leads with the user, says where to set it (the app’s own controls), then the key', () => {
    const en = refused('ami', 'en');
    assert.equal(en.title, 'The server refused the login as “ec2-user”, a user guessed from the AMI.');
    const hint = en.hint ?? '';
    const user = Math.min(hint.indexOf(en.connectAs), hint.indexOf(`Settings › ${en.defaultUser}`));
    assert.ok(user >= 0, `${hint} names Connect as… and Settings › Default login user`);
    assert.ok(user < hint.indexOf('the key was refused'), `${hint}: the user first, then the key`);
    assert.match(hint, /authorized_keys/);
    assert.equal(en.field, 'defaultUser', 'the Settings button opens the login user, not the key file');
    assert.equal(en.detail, 'web-1 refused the login as “ec2-user”; tried: /keys/id_team.');

    const ja = refused('ami', 'ja');
    assert.equal(ja.title, 'サーバーが「ec2-user」でのログインを拒否しました。「ec2-user」は AMI から推定したユーザーです。');
    const jaHint = ja.hint ?? '';
    const jaUser = Math.min(jaHint.indexOf(`「${ja.connectAs}」`), jaHint.indexOf(`設定の「${ja.defaultUser}」`));
    assert.ok(jaUser >= 0, `${jaHint} names 「接続ユーザー…」 and 設定の「既定のログインユーザー」`);
    assert.ok(jaUser < jaHint.indexOf('鍵が拒否されています'), `${jaHint}: the user first, then the key`);
    assert.doesNotMatch(`${ja.title} ${jaHint}`, /[A-Za-z]{4,} [a-z]{3,}/, 'no English sentence in the Japanese words');
    assert.equal(ja.field, 'defaultUser');
  });

  it('for a user someone chose leads with the key, as before', () => {
    for (const source of ['settings', 'tag', 'instance', 'flag'] as const) {
      assert.equal(refused(source, 'en').title, 'The server did not accept the key.', source);
      assert.equal(refused(source, 'ja').title, 'サーバーが鍵を受け付けませんでした。', source);
      assert.equal(refused(source, 'en').field, 'identityFile', source);
    }
  });
});
