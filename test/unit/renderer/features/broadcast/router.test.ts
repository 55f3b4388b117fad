import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BroadcastRouter, parseTagFilter, pasteKeystrokes, tabsWithTag, type BroadcastMember } from '../../../../../renderer/features/broadcast/router.js';

// Broadcast routing: exactly the chosen tabs, once each; pastes per receiving terminal's mode.

function member(id: string, bracketed = false): BroadcastMember & { got: string[]; bracketed: boolean } {
  const m = { id, got: [] as string[], bracketed, send: (d: string) => m.got.push(d), bracketedPaste: () => m.bracketed };
  return m;
}

function setup() {
  const r = new BroadcastRouter();
  const [a, b, c] = [member('a'), member('b', true), member('c')];
  for (const m of [a, b, c]) r.register(m);
  return { r, a, b, c };
}

describe('BroadcastRouter', () => {
  it('is off by default: input stays in its own tab', () => {
    const { r, a } = setup();
    assert.equal(r.input('a', 'x'), false);
    assert.deepEqual(a.got, []);
  });

  it('sends keystrokes and control keys to exactly the chosen tabs, once each', () => {
    const { r, a, b, c } = setup();
    assert.deepEqual(r.start(['a', 'b', 'nope']), ['a', 'b']);
    for (const key of ['l', 's', '\r', '\x03', '\x1b[A', '\t', '\x1b']) assert.equal(r.input('a', key), true);
    const all = ['l', 's', '\r', '\x03', '\x1b[A', '\t', '\x1b'];
    assert.deepEqual(a.got, all);
    assert.deepEqual(b.got, all);
    assert.deepEqual(c.got, []);
    // Typing in a tab outside the set is that tab's own business.
    assert.equal(r.input('c', 'z'), false);
    assert.deepEqual(a.got.length, all.length);
  });

  it('pastes per receiving terminal: bracketed only where that terminal asked', () => {
    const { r, a, b } = setup();
    r.start(['a', 'b']);
    assert.equal(r.paste('b', 'echo 1\necho 2\n'), true);
    assert.deepEqual(a.got, ['echo 1\recho 2\r']);
    assert.deepEqual(b.got, ['\x1b[200~echo 1\recho 2\r\x1b[201~']);
  });

  it('stops with one call; closing a receiving tab takes it out; change listeners hear it', () => {
    const { r, b } = setup();
    let changes = 0;
    r.onChange(() => changes++);
    r.start(['a', 'b']);
    r.unregister('b');
    assert.deepEqual(r.set, ['a']);
    r.input('a', 'x');
    assert.deepEqual(b.got, []);
    r.stop();
    assert.equal(r.active, false);
    assert.equal(r.input('a', 'y'), false);
    assert.equal(changes, 3);
  });

  it('types a snippet into every tab of the set', () => {
    const { r, a, b, c } = setup();
    r.start(['a', 'c']);
    assert.deepEqual(r.typeInAll('uptime\r'), { sent: 2, skipped: 0 });
    assert.deepEqual([a.got, b.got, c.got], [['uptime\r'], [], ['uptime\r']]);
  });

  it('types a snippet only into the tabs it applies to, counting the others', () => {
    const { r, a, b, c } = setup();
    r.start(['a', 'b', 'c']);
    assert.deepEqual(
      r.typeInAll('reboot\r', (id) => id === 'b'),
      { sent: 1, skipped: 2 },
    );
    assert.deepEqual([a.got, b.got, c.got], [[], ['reboot\r'], []]);
  });
});

describe('pasteKeystrokes', () => {
  it('cannot be broken out of by an end marker inside the text', () => {
    assert.equal(pasteKeystrokes('a\x1b[201~rm -rf ~\n', true), '\x1b[200~arm -rf ~\r\x1b[201~');
    assert.equal(pasteKeystrokes('a\r\nb', false), 'a\rb');
  });

  it('a marker rebuilt by removing another is removed too, and no ESC survives', () => {
    // Removing the inner ESC[201~ once joined "ESC[20" and "1~" into a new end marker.
    assert.equal(pasteKeystrokes('x\x1b[20\x1b[201~1~; rm -rf ~\n', true), '\x1b[200~x; rm -rf ~\r\x1b[201~');
    assert.equal(pasteKeystrokes('\x1b[200\x1b[200~~y', true), '\x1b[200~y\x1b[201~');
    for (const bracketed of [true, false]) {
      const sent = pasteKeystrokes('a\x1b\x1b[20\x1b[201~1~b\x1b]0;title\x07c\x1b[Ad', bracketed);
      const inner = bracketed ? sent.slice('\x1b[200~'.length, -'\x1b[201~'.length) : sent;
      assert.ok(!inner.includes('\x1b'), JSON.stringify(sent));
    }
  });
});

describe('tag-based sets', () => {
  it('parses key=value and finds the tabs of instances with that exact value', () => {
    assert.deepEqual(parseTagFilter(' env =staging'), { key: 'env', value: 'staging' });
    assert.deepEqual(parseTagFilter('k=a=b'), { key: 'k', value: 'a=b' });
    assert.equal(parseTagFilter('env'), null);
    assert.equal(parseTagFilter('=x'), null);
    const tabs = [
      { id: 't1', instanceId: 'i-1' },
      { id: 't2', instanceId: 'i-2' },
      { id: 't3', instanceId: 'i-1' },
      { id: 't4', instanceId: null },
    ];
    const instances = [
      { id: 'i-1', tags: { env: 'staging' } },
      { id: 'i-2', tags: { env: 'Staging' } },
    ];
    assert.deepEqual(tabsWithTag(tabs, instances, { key: 'env', value: 'staging' }), ['t1', 't3']);
  });
});
