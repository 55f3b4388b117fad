import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import { setLocale } from '../../../../../renderer/i18n/index.js';
import { generateExport, zipFiles } from '../../../../../renderer/features/exports/generate.js';
import { defaultSettings } from '../../../../../src/common/model/settings.js';
import { detectEncoding } from '../../../../../src/common/import/encoding.js';
import { instanceOf } from '../../../../support/instance.js';

// The Export dialog's Tera Term macros as the person downloads them (several: one .zip): the
// bytes of each file, in the app's language down to the header comments a person reads when
// opening the macro in an editor, and UTF-8 that Tera Term reads as UTF-8.

const AT = '2026-01-02T03:04:05Z';
const instances = [
  instanceOf({ id: 'i-0a1b2c3d4e5f60718', name: '踏み台', publicIp: '203.0.113.10' }),
  instanceOf({ id: 'i-0fedcba9876543210', name: 'web-1', publicIp: '203.0.113.20' }),
];
const users = { 'i-0a1b2c3d4e5f60718': { user: 'ec2-user' }, 'i-0fedcba9876543210': { user: 'ubuntu' } };

/** The downloaded archive's files, as bytes, for the app in this language. */
function downloaded(locale: 'en' | 'ja', mode: 'dynamic' | 'static'): Array<[string, Uint8Array]> {
  setLocale(locale);
  const { files } = generateExport({ format: 'teraterm', auth: 'pageant', mode }, instances, defaultSettings(), null, users, AT);
  return Object.entries(unzipSync(zipFiles(files)));
}

afterEach(() => setLocale('en'));

test('in Japanese the downloaded macros’ header comments are Japanese, in UTF-8 that Tera Term reads as UTF-8', () => {
  for (const mode of ['dynamic', 'static'] as const) {
    const files = downloaded('ja', mode);
    assert.deepEqual(files.map(([name]) => name).sort(), ['tagssh-menu.ttl', 'web-1.ttl', '踏み台.ttl']);
    for (const [name, bytes] of files) {
      assert.notDeepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], `${name}: no BOM`);
      assert.equal(detectEncoding(bytes), 'utf-8', `${name}: valid UTF-8, so not read in the ANSI code page`);
      const header = new TextDecoder('utf-8', { fatal: true })
        .decode(bytes)
        .split('\r\n')
        .filter((l) => l.startsWith(';'));
      assert.match(header[0]!, name === 'tagssh-menu.ttl' ? /^; TagSSH: 2 台のインスタンスから 1 台を選んで接続$/ : /^; TagSSH: (踏み台|web-1) に接続$/);
      assert.equal(header[1], `; TagSSH が ${AT} に書き出しました。編集せず、書き出し直してください。`);
      assert.match(header.at(-1)!, mode === 'static' ? /^; 静的: / : /^; 動的: /);
      for (const line of header) assert.doesNotMatch(line, /Exported by|Do not edit|connect to|pick one|Dynamic|Static/, `${name}: ${line}`);
    }
  }
  const [, en] = downloaded('en', 'dynamic').find(([name]) => name === '踏み台.ttl')!;
  assert.match(new TextDecoder().decode(en), /^; TagSSH: connect to 踏み台\r\n; Exported by TagSSH at /);
});
