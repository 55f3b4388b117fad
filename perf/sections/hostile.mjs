// Hostile input: the EC2 XML parser on what a broken or hostile endpoint may send. The 240 KB
// unclosed `<a ` and `<!--` documents once took ~11 s (a rescan from every '<'); the parser is
// now a single forward pass. fast-xml-parser (the library xml.ts stands in for) runs the same
// inputs for comparison. A normal 1,000-instance DescribeInstances page is measured alongside.
import { load } from '../lib/sshLab.mjs';

export const title = 'Hostile input: EC2 XML parser';

function page(n) {
  const items = [];
  for (let i = 0; i < n; i++) {
    items.push(
      `<item><instanceId>i-${String(i).padStart(17, '0')}</instanceId><instanceState><code>16</code><name>running</name></instanceState><tagSet><item><key>Name</key><value>web-${i} &amp; co</value></item></tagSet><ipAddress>127.0.0.2</ipAddress></item>`,
    );
  }
  return `<?xml version="1.0"?><DescribeInstancesResponse><reservationSet><item><instancesSet>${items.join('')}</instancesSet></item></reservationSet></DescribeInstancesResponse>`;
}

export async function run(ctx) {
  const { parseXml } = await load(ctx, 'src/node/aws/ec2/xml.ts');
  const { XMLParser } = await import('fast-xml-parser');
  const reference = new XMLParser({ ignoreAttributes: true, parseTagValue: false, trimValues: false, isArray: (n) => n === 'item' });
  const size = 240 * 1024;
  const inputs = {
    'unclosed `<a ` ×80k (240 KB)': `<R>${'<a '.repeat(size / 3)}`,
    'unclosed `<!--` ×60k (240 KB)': `<R>${'<!--'.repeat(size / 4)}`,
    'DescribeInstances page, 1,000 instances': page(1000),
  };
  const attempt = (fn, xml) => () => {
    try {
      fn(xml);
    } catch {
      // refusing the document is the expected outcome for the hostile inputs
    }
  };
  const rows = [];
  for (const [name, xml] of Object.entries(inputs)) {
    ctx.log(`xml: ${name}`);
    const r = await ctx.medians({ tagssh: attempt(parseXml, xml), incumbent: attempt((x) => reference.parse(x), xml) });
    rows.push({
      name: `parse ${name}`,
      tagssh: { median_ms: r.tagssh.median_ms },
      incumbent: { median_ms: r.incumbent.median_ms, label: 'fast-xml-parser' },
      ratio: r.incumbent.median_ms / r.tagssh.median_ms,
      target: name.startsWith('unclosed') ? '<= 50 ms (was ~11 s)' : undefined,
      pass: name.startsWith('unclosed') ? r.tagssh.median_ms <= 50 : undefined,
    });
  }
  return rows;
}
