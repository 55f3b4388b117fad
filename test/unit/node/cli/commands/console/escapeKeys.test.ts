import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EscapeKeys } from '../../../../../../src/node/cli/commands/console/escapeKeys.js';

describe('EscapeKeys (Enter ~ . ends a serial console)', () => {
  it('~. at the start of a line closes; what came before it is still sent', () => {
    const k = new EscapeKeys();
    assert.deepEqual(k.feed('ls\r'), { send: 'ls\r', close: false });
    assert.deepEqual(k.feed('~.'), { send: '', close: true });
    assert.deepEqual(new EscapeKeys().feed('x\r~.rest'), { send: 'x\r', close: true });
  });

  it('~ mid-line, ~~ and ~x are sent as typed (~~ as one ~), also split across reads', () => {
    const k = new EscapeKeys();
    assert.deepEqual(k.feed('cd ~.'), { send: 'cd ~.', close: false });
    assert.deepEqual(k.feed('\r~~'), { send: '\r~', close: false });
    const s = new EscapeKeys();
    assert.deepEqual(s.feed('~'), { send: '', close: false });
    assert.deepEqual(s.feed('x'), { send: '~x', close: false });
    const split = new EscapeKeys();
    split.feed('\r~');
    assert.deepEqual(split.feed('.'), { send: '', close: true });
  });
});
