import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { decodeEntities, parseXml, MAX_XML_CHARS } from '../../../../../src/node/aws/ec2/xml.js';

// xml.ts replaces fast-xml-parser on the CLI's hot path; it must read EC2 responses identically.
const reference = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  isArray: (name) => name === 'item',
  processEntities: true,
  htmlEntities: true,
});

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

// Shaped like moto's DescribeInstances (compact) and AWS's (pretty-printed) answers.
const MOTO = `<?xml version="1.0" encoding="utf-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15"><reservationSet><item><reservationId>r-1</reservationId><groupSet/><instancesSet><item><instanceId>i-0123456789abcdef0</instanceId><instanceState><code>16</code><name>running</name></instanceState><tagSet><item><key>Name</key><value>web "1" $(x) &amp; &lt;b&gt;
line</value></item><item><key>empty</key><value></value></item><item><key>sp</key><value>  padded  </value></item><item><key>n</key><value>007</value></item></tagSet><ipAddress>127.0.0.2</ipAddress></item><item><instanceId>i-2</instanceId><tagSet><item><key>Name</key><value>日本語 🎉 &#x1F680; &#65;</value></item></tagSet></item></instancesSet></item></reservationSet><requestId>req</requestId></DescribeInstancesResponse>`;

const AWS_PRETTY = `<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
    <requestId>8f7724cf-496f-496e-8fe3-example</requestId>
    <reservationSet>
        <item>
            <reservationId>r-1234567890abcdef0</reservationId>
            <instancesSet>
                <item>
                    <instanceId>i-1234567890abcdef0</instanceId>
                    <tagSet>
                        <item>
                            <key>Name</key>
                            <value>prod web</value>
                        </item>
                    </tagSet>
                </item>
            </instancesSet>
        </item>
    </reservationSet>
    <nextToken>abc==</nextToken>
</DescribeInstancesResponse>`;

/** Walks a parsed document: at(doc, 'a', 'item', 0, 'b'). */
function at(v: unknown, ...path: Array<string | number>): unknown {
  return path.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v);
}

/** fast-xml-parser keeps whitespace between elements as "#text"; EC2 data never lives there. */
function withoutWhitespaceText(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutWhitespaceText);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!(k === '#text' && typeof x === 'string' && x.trim() === '')) out[k] = withoutWhitespaceText(x);
    return out;
  }
  return v;
}

/** Nodes have no prototype (a hostile `<__proto__>` is just a key); compare them as plain data. */
function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v)) as unknown;
}

/** fast-xml-parser's view, minus the XML declaration it reports as a '?xml' key. */
function expected(xml: string): unknown {
  const { '?xml': _decl, ...doc } = reference.parse(xml) as Record<string, unknown>;
  return withoutWhitespaceText(doc);
}

test('parses a moto-style response exactly like fast-xml-parser', () => {
  assert.deepEqual(plain(parseXml(MOTO)), expected(MOTO));
});

test('parses a pretty-printed AWS response like fast-xml-parser (ignoring inter-element whitespace)', () => {
  assert.deepEqual(plain(parseXml(AWS_PRETTY)), expected(AWS_PRETTY));
});

test('keeps tag values verbatim: quotes, $(), newlines, entities, padding, leading zeros, empty', () => {
  const instances = at(parseXml(MOTO), 'DescribeInstancesResponse', 'reservationSet', 'item', 0, 'instancesSet', 'item');
  const tag = (i: number, t: number) => at(instances, i, 'tagSet', 'item', t, 'value');
  assert.equal(tag(0, 0), 'web "1" $(x) & <b>\nline');
  assert.equal(tag(0, 1), '');
  assert.equal(tag(0, 2), '  padded  ');
  assert.equal(tag(0, 3), '007');
  assert.equal(tag(1, 0), '日本語 🎉 🚀 A');
});

test('a single <item> is still an array; self-closing elements are empty strings', () => {
  assert.deepEqual(plain(parseXml('<R><set><item><a>1</a></item></set><empty/></R>')), { R: { set: { item: [{ a: '1' }] }, empty: '' } });
});

test('rejects truncated or mismatched documents', () => {
  assert.throws(() => parseXml('<a><b>x</a>'), /malformed/);
  assert.throws(() => parseXml('<a><b>x</b>'), /not closed/);
  assert.throws(() => parseXml('<!doctype html><html><p>500</p>'), /not closed/);
});

test('decodeEntities handles named, decimal and hex references', () => {
  assert.equal(decodeEntities('&lt;&gt;&amp;&quot;&apos;&#233;&#xE9;'), `<>&"'éé`);
  assert.equal(decodeEntities('no entities'), 'no entities');
});

test('any tag value survives escaping and parsing (property)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (value) => {
      // XML 1.0 cannot carry most control characters; EC2 rejects them in tags too.
      // eslint-disable-next-line no-control-regex
      fc.pre(!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\r]/.test(value));
      const xml = `<R><tagSet><item><key>Name</key><value>${escapeXml(value)}</value></item></tagSet></R>`;
      const mine = parseXml(xml);
      assert.equal(at(mine, 'R', 'tagSet', 'item', 0, 'value'), value);
      assert.deepEqual(plain(mine), expected(xml));
    }),
    { numRuns: 300 },
  );
});

// A hostile or broken endpoint: each of these once froze, crashed or corrupted the parser.

test('an unclosed tag, comment or CDATA section of 240 KB is refused as not closed (one forward pass)', () => {
  const big = 240 * 1024;
  assert.throws(() => parseXml(`<R>${'<a '.repeat(big / 3)}`), /a tag is not closed/);
  assert.throws(() => parseXml(`<R>${'<!--'.repeat(big / 4)}`), /a comment is not closed/);
  assert.throws(() => parseXml(`<R><![CDATA[${'x'.repeat(big)}`), /a CDATA section is not closed/);
  assert.throws(() => parseXml(`<R>${'<a>'.repeat(big / 3)}`), /nest deeper than 256 levels/);
});

test('out-of-range character references decode to U+FFFD instead of throwing', () => {
  assert.equal(decodeEntities('a&#99999999;b'), 'a\uFFFDb');
  assert.equal(decodeEntities('&#x110000;&#xD800;&#0;&#65;'), '\uFFFD\uFFFD\uFFFDA');
  assert.equal(at(parseXml('<R><v>&#9999999999;</v></R>'), 'R', 'v'), '\uFFFD');
});

test('<__proto__> and <constructor> are ordinary keys: no node gains a prototype from the document', () => {
  const doc = parseXml('<R><__proto__><polluted>yes</polluted></__proto__><constructor>c</constructor></R>');
  const r = at(doc, 'R') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(r), null);
  assert.ok(Object.hasOwn(r, '__proto__'));
  assert.deepEqual(plain(r['__proto__']), { polluted: 'yes' });
  assert.equal(r['constructor'], 'c');
  assert.equal((r as { polluted?: unknown }).polluted, undefined);
  assert.equal(({} as { polluted?: unknown }).polluted, undefined);
});

test('CDATA is taken verbatim, never entity-decoded', () => {
  assert.equal(at(parseXml('<R><v>&amp;<![CDATA[&amp;<b>]]>&lt;</v></R>'), 'R', 'v'), '&&amp;<b><');
});

test('documents over the size cap are refused before any work', () => {
  assert.ok(MAX_XML_CHARS >= 16 * 1024 * 1024);
  assert.throws(() => parseXml('<R>0123456789</R>', { maxChars: 10, maxDepth: 256 }), /larger than 10 characters/);
  assert.deepEqual(plain(parseXml('<R>0123</R>', { maxChars: 11, maxDepth: 256 })), { R: '0123' });
});
