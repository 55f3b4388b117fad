// A minimal parser for EC2 Query-API responses, producing the same shape as fast-xml-parser
// configured with { ignoreAttributes, parseTagValue: false, trimValues: false, isArray: 'item' }:
// elements become objects keyed by tag name, leaves become their (entity-decoded) text, `<x/>`
// becomes '', and every <item> is collected into an array. EC2 responses use no attributes
// (beyond xmlns), CDATA, comments or mixed content, so this is all they need; it loads in
// well under a millisecond where fast-xml-parser costs ~15 ms of the CLI's start-up budget.
// test/unit/node/aws/xml.test.ts checks it against fast-xml-parser on real moto responses.

export type XmlNode = { [key: string]: XmlValue };
export type XmlValue = string | XmlNode | XmlValue[];

const TOKEN = /<(\/?)([A-Za-z_][\w.:-]*)[^>]*?(\/?)>|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>/g;
const ENTITY = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (_m, dec: string | undefined, hex: string | undefined, name: string | undefined) =>
    dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : (NAMED[name as string] as string),
  );
}

interface Frame {
  name: string;
  children: XmlNode | undefined;
  text: string;
}

function attach(parent: Frame, name: string, value: XmlValue): void {
  const obj = (parent.children ??= {});
  if (name === 'item') {
    const arr = (obj.item as XmlValue[] | undefined) ?? (obj.item = []);
    (arr as XmlValue[]).push(value);
  } else if (Object.prototype.hasOwnProperty.call(obj, name)) {
    // A repeated non-item element: keep them all, as fast-xml-parser does.
    const prev = obj[name] as XmlValue;
    obj[name] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  } else obj[name] = value;
}

export function parseXml(xml: string): XmlNode {
  const root: Frame = { name: '', children: undefined, text: '' };
  const stack: Frame[] = [root];
  let last = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(xml); m; m = TOKEN.exec(xml)) {
    const top = stack[stack.length - 1] as Frame;
    if (m.index > last) top.text += xml.slice(last, m.index);
    last = TOKEN.lastIndex;
    const [, close, name, selfClose, cdata] = m;
    if (cdata !== undefined) {
      top.text += cdata;
      continue;
    }
    if (!name) continue; // declaration or comment
    if (close) {
      if (stack.length <= 1 || top.name !== name) throw new Error(`malformed XML: unexpected </${name}>`);
      stack.pop();
      const parent = stack[stack.length - 1] as Frame;
      attach(parent, name, top.children ?? decodeEntities(top.text));
    } else if (selfClose) {
      attach(top, name, '');
    } else {
      stack.push({ name, children: undefined, text: '' });
    }
  }
  if (stack.length !== 1) throw new Error(`malformed XML: <${(stack[stack.length - 1] as Frame).name}> is not closed`);
  return root.children ?? {};
}
