// A minimal parser for EC2 Query-API responses, producing the same shape as fast-xml-parser
// configured with { ignoreAttributes, parseTagValue: false, trimValues: false, isArray: 'item' }:
// elements become objects keyed by tag name, leaves become their (entity-decoded) text, `<x/>`
// becomes '', and every <item> is collected into an array. EC2 responses use no attributes
// (beyond xmlns), CDATA, comments or mixed content, so this is all they need; it loads in
// a small fraction of fast-xml-parser's load time (perf/DECISIONS.md).
// test/unit/node/aws/ec2/xml.test.ts checks it against fast-xml-parser on real moto responses.
//
// The endpoint may be hostile or broken (a proxy, an emulator, a captive portal), so the scanner
// is a single forward pass (every construct is found with indexOf from where the last one ended,
// and an unterminated one is an error, never a rescan), sizes and depth are capped, character
// references are range-checked, and nodes have no prototype (`<__proto__>` is just a key).

type XmlNode = { [key: string]: XmlValue };
type XmlValue = string | XmlNode | XmlValue[];

/** Largest document parsed; DescribeInstances pages (≤ 1,000 instances) stay far below it. */
export const MAX_XML_CHARS = 64 * 1024 * 1024;
/** Deepest element nesting accepted; EC2 responses nest fewer than 15 levels. */
const MAX_XML_DEPTH = 256;

const ENTITY = /&(?:#(\d{1,10})|#x([0-9a-fA-F]{1,8})|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const NAME = /[A-Za-z_][\w.:-]*/y;

/** A code point XML may carry; anything else decodes to U+FFFD rather than throwing. */
function fromCodePoint(cp: number): string {
  const ok = cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
  return ok ? String.fromCodePoint(cp) : '\uFFFD';
}

export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (_m, dec: string | undefined, hex: string | undefined, name: string | undefined) =>
    dec ? fromCodePoint(Number(dec)) : hex ? fromCodePoint(parseInt(hex, 16)) : (NAMED[name as string] as string),
  );
}

interface Frame {
  name: string;
  children: XmlNode | undefined;
  /** Text so far, already decoded (entities in ordinary text, CDATA verbatim). */
  text: string;
}

function attach(parent: Frame, name: string, value: XmlValue): void {
  const obj = (parent.children ??= Object.create(null) as XmlNode);
  if (name === 'item') {
    const arr = (obj.item as XmlValue[] | undefined) ?? (obj.item = []);
    (arr as XmlValue[]).push(value);
  } else if (Object.hasOwn(obj, name)) {
    // A repeated non-item element: keep them all, as fast-xml-parser does.
    const prev = obj[name] as XmlValue;
    obj[name] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  } else obj[name] = value;
}

function malformed(what: string): Error {
  return new Error(`malformed XML: ${what}`);
}

/** Index just past `close`, searching from `from`; throws when the construct never ends. */
function endOf(xml: string, from: number, close: string, what: string): number {
  const at = xml.indexOf(close, from);
  if (at < 0) throw malformed(`${what} is not closed`);
  return at + close.length;
}

interface XmlLimits {
  maxChars: number;
  maxDepth: number;
}

export function parseXml(xml: string, limits: XmlLimits = { maxChars: MAX_XML_CHARS, maxDepth: MAX_XML_DEPTH }): XmlNode {
  if (xml.length > limits.maxChars) throw malformed(`document is larger than ${limits.maxChars} characters`);
  const root: Frame = { name: '', children: undefined, text: '' };
  const stack: Frame[] = [root];
  let i = 0;
  for (;;) {
    const top = stack[stack.length - 1] as Frame;
    const lt = xml.indexOf('<', i);
    const textEnd = lt < 0 ? xml.length : lt;
    if (textEnd > i) top.text += decodeEntities(xml.slice(i, textEnd));
    if (lt < 0) break;
    if (xml.startsWith('<!--', lt)) {
      i = endOf(xml, lt + 4, '-->', 'a comment');
    } else if (xml.startsWith('<![CDATA[', lt)) {
      const end = endOf(xml, lt + 9, ']]>', 'a CDATA section');
      top.text += xml.slice(lt + 9, end - 3);
      i = end;
    } else if (xml.startsWith('<?', lt)) {
      i = endOf(xml, lt + 2, '?>', 'a processing instruction');
    } else if (xml.startsWith('<!', lt)) {
      // A declaration such as <!DOCTYPE>: skipped; its entities are never expanded.
      i = endOf(xml, lt + 2, '>', 'a declaration');
    } else {
      const end = endOf(xml, lt + 1, '>', 'a tag');
      const close = xml.charCodeAt(lt + 1) === 0x2f; // '/'
      NAME.lastIndex = lt + 1 + (close ? 1 : 0);
      const name = NAME.exec(xml)?.[0];
      if (!name || NAME.lastIndex > end - 1) throw malformed(`a tag at offset ${lt} has no name`);
      i = end;
      if (close) {
        if (stack.length <= 1 || top.name !== name) throw malformed(`unexpected </${name}>`);
        stack.pop();
        attach(stack[stack.length - 1] as Frame, name, top.children ?? top.text);
      } else if (xml.charCodeAt(end - 2) === 0x2f) {
        attach(top, name, '');
      } else {
        if (stack.length > limits.maxDepth) throw malformed(`elements nest deeper than ${limits.maxDepth} levels`);
        stack.push({ name, children: undefined, text: '' });
      }
    }
  }
  if (stack.length !== 1) throw malformed(`<${(stack[stack.length - 1] as Frame).name}> is not closed`);
  return root.children ?? (Object.create(null) as XmlNode);
}
