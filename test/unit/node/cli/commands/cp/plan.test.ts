import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseLocation, planCopy } from '../../../../../../src/node/cli/commands/cp/plan.js';

// Which argument of `tagssh cp` is remote, by scp's rule, and which combinations are refused.

describe('parseLocation', () => {
  it('reads NAME:path, i-…:path and user@NAME:path as remote; an empty path is the login directory', () => {
    assert.deepEqual(parseLocation('web:/tmp/x'), { remote: true, name: 'web', path: '/tmp/x' });
    assert.deepEqual(parseLocation('i-0abc:'), { remote: true, name: 'i-0abc', path: '.' });
    assert.deepEqual(parseLocation('ubuntu@web server:a b'), { remote: true, user: 'ubuntu', name: 'web server', path: 'a b' });
  });

  it('keeps a Name that holds @ whole when the prefix is no login name', () => {
    assert.deepEqual(parseLocation('db @tokyo:x'), { remote: true, name: 'db @tokyo', path: 'x' });
    assert.deepEqual(parseLocation('@web:x'), { remote: true, name: '@web', path: 'x' });
  });

  it('treats paths with a slash before the colon, and Windows drives on Windows, as local', () => {
    assert.deepEqual(parseLocation('./a:b'), { remote: false, path: './a:b' });
    assert.deepEqual(parseLocation('/abs/x:y'), { remote: false, path: '/abs/x:y' });
    assert.deepEqual(parseLocation('plain.txt'), { remote: false, path: 'plain.txt' });
    assert.deepEqual(parseLocation('C:\\Users\\me\\f.txt', 'win32'), { remote: false, path: 'C:\\Users\\me\\f.txt' });
    assert.equal(parseLocation('C:\\Users\\me\\f.txt', 'linux').remote, true);
  });
});

describe('planCopy', () => {
  it('uploads when the destination is remote and downloads when the sources are', () => {
    assert.equal(planCopy(['a', 'b', 'web:/tmp/']).direction, 'upload');
    const down = planCopy(['web:a', 'web:b', '.']);
    assert.equal(down.direction, 'download');
    assert.deepEqual(down.sources, ['a', 'b']);
  });

  it('refuses: too few arguments, no remote side, mixed sides, two instances', () => {
    assert.throws(() => planCopy(['web:a']), { code: 'INVALID_INPUT', message: /needs a source and a destination/ });
    assert.throws(() => planCopy(['a', 'b']), { code: 'INVALID_INPUT', message: /Neither side is on an instance/ });
    assert.throws(() => planCopy(['web:a', 'b', '.']), { code: 'INVALID_INPUT', message: /mix local paths/ });
    assert.throws(() => planCopy(['web:a', 'db:b', '.']), { code: 'INVALID_INPUT', message: /different instances \(web and db\)/ });
    assert.throws(() => planCopy(['web:a', 'db:b']), { code: 'INVALID_INPUT', message: /between two instances \(web and db\)/ });
    assert.throws(() => planCopy(['web:a', 'web:b']), { code: 'INVALID_INPUT', message: /to itself/ });
  });
});
