import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { localNameProblem, namePlatformOf, quoteName } from '../../../../src/common/files/localName.js';

// The one rule for a server's name becoming a local directory entry, on both platforms wherever
// the tests run (the copy picks the rule of the machine it writes on).

describe('localNameProblem', () => {
  const hostile: Array<[string, string]> = [
    ['', 'empty'],
    ['.', 'dot'],
    ['..', 'dot'],
    ['./..', 'slash'],
    ['../../.ssh/authorized_keys', 'slash'],
    ['sub/../../../x', 'slash'],
    ['/tmp/x', 'slash'],
    ['a/', 'slash'],
    ['nul\0byte', 'nul'],
    ['x'.repeat(256), 'long'],
  ];
  it('refuses on every platform: empty, . and .., any /, NUL, longer than 255 bytes', () => {
    for (const platform of ['posix', 'win32'] as const)
      for (const [name, problem] of hostile) assert.equal(localNameProblem(name, platform), problem, `${platform}: ${JSON.stringify(name)}`);
  });

  it('takes on POSIX what is an ordinary character there: backslash, colon, device-like names, trailing dots', () => {
    for (const name of ['ok.txt', 'back\\slash\\..\\..\\x', 'C:x', 'a:b', 'CON', 'nul.txt', 'a.', '...', 'x ', 'new\nline', '$(x)', 'ユニコード', '..a', 'a..'])
      assert.equal(localNameProblem(name, 'posix'), null, JSON.stringify(name));
  });

  it('refuses on Windows: backslash, colon (drive, stream), reserved devices with any extension, reserved characters, trailing dots and spaces', () => {
    const win: Array<[string, string]> = [
      ['..\\..\\x', 'backslash'],
      ['back\\slash', 'backslash'],
      ['C:x', 'colon'],
      ['file.txt:stream', 'colon'],
      ['CON', 'device'],
      ['con', 'device'],
      ['nul.txt', 'device'],
      ['COM1', 'device'],
      ['lpt9.log', 'device'],
      ['AUX.tar.gz', 'device'],
      ['a<b', 'reserved'],
      ['q?', 'reserved'],
      ['star*', 'reserved'],
      ['tab\tname', 'reserved'],
      ['a.', 'trailing'],
      ['x ', 'trailing'],
      ['.. ', 'dot'],
      ['...', 'dot'],
      [' . ', 'dot'],
    ];
    for (const [name, problem] of win) assert.equal(localNameProblem(name, 'win32'), problem, JSON.stringify(name));
    for (const name of ['ok.txt', 'console', 'COM10', 'nulls', '.hidden', 'a..b', 'ユニコード']) assert.equal(localNameProblem(name, 'win32'), null, name);
  });

  it('picks the rule of the platform the copy writes on', () => {
    assert.equal(namePlatformOf('win32'), 'win32');
    assert.equal(namePlatformOf('linux'), 'posix');
    assert.equal(namePlatformOf('darwin'), 'posix');
  });

  it('quotes a name with its control characters made visible', () => {
    assert.equal(quoteName('nul\0byte'), '"nul\\x00byte"');
    assert.equal(quoteName('\x1b]0;title\x07'), '"\\x1b]0;title\\x07"');
  });
});
