// AWS: `tagssh resolve` and `tagssh list` against the aws CLI (v1), on the same moto data.
//
// resolve, cold cache: every run gets a fresh, empty TAGSSH_HOME.
// resolve, warm cache: the same TAGSSH_HOME again and again, as on a user's machine. (resolve
//   always asks EC2 and never reads the inventory cache, so only `--region all` gains from a warm
//   one: its region list; Node 20 has no compile cache for ES modules.)
// baseline: `node -e` that sends the very same DescribeInstances request once (start-up + 1 RTT).
// list: 5,000 instances in 3 regions (`tagssh list --json --cache off`) against
//       `aws ec2 describe-instances` for one of those regions; once with the lean client (the
//       CLI's) and once with TAGSSH_EC2_CLIENT=sdk (the app's client, @aws-sdk/client-ec2).
// All clients talk to moto through a record-once/replay proxy (perf/lib/replayProxy.mjs), so
// the timings measure the clients, not moto's ~7 ms per instance of XML rendering.
import { startReplayProxy } from '../lib/replayProxy.mjs';

export const title = 'AWS: resolve by Name tag, list instances (vs aws CLI)';

const AMI = 'ami-12c6146b';
const NAME = 'bench-web';
const LIST_REGIONS = ['eu-west-1', 'ap-southeast-2', 'us-west-2'];

async function seed(ctx, region, count, namePrefix, batch = 500) {
  const { RunInstancesCommand } = await import('@aws-sdk/client-ec2');
  const ec2 = await ctx.ec2(region);
  let left = count;
  let n = 0;
  while (left > 0) {
    const k = Math.min(batch, left);
    await ec2.send(
      new RunInstancesCommand({
        ImageId: AMI,
        InstanceType: 't3.micro',
        MinCount: k,
        MaxCount: k,
        TagSpecifications: [
          {
            ResourceType: 'instance',
            Tags: [
              { Key: 'Name', Value: `${namePrefix}-${n++}` },
              { Key: 'team', Value: 'bench' },
            ],
          },
        ],
      }),
    );
    left -= k;
  }
}

/** One signed-looking DescribeInstances round trip from a fresh node process (moto does not check signatures). */
function roundTripScript(endpoint, body) {
  const u = new URL(endpoint);
  const auth = 'AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/ec2/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=0';
  return `const h=require('http');const b=${JSON.stringify(body)};const r=h.request({host:${JSON.stringify(u.hostname)},port:${u.port},method:'POST',path:'/',headers:{'content-type':'application/x-www-form-urlencoded; charset=utf-8','x-amz-date':'20240101T000000Z',authorization:${JSON.stringify(auth)},'content-length':Buffer.byteLength(b)}},s=>{let d='';s.on('data',c=>d+=c);s.on('end',()=>{if(!d.includes('<instanceId>'))process.exit(1)})});r.end(b);`;
}

export async function run(ctx) {
  const listTotal = ctx.quick ? 300 : 5000;

  ctx.log(`seeding ${NAME} + 20 others in us-east-1, ${listTotal} instances in ${LIST_REGIONS.join(', ')} (moto is slow: 1-3 min for 5,000)`);
  await seed(ctx, 'us-east-1', 1, NAME);
  await seed(ctx, 'us-east-1', 20, 'other');
  // 5,000 split as evenly as whole instances allow (1667 + 1667 + 1666), regions in parallel.
  await Promise.all(
    LIST_REGIONS.map((r, i) => seed(ctx, r, Math.floor(listTotal / LIST_REGIONS.length) + (i < listTotal % LIST_REGIONS.length ? 1 : 0), `fleet-${r}`)),
  );
  // The seeded name is "bench-web-0"; resolve that exact value.
  const name = `${NAME}-0`;

  const proxy = await startReplayProxy(ctx.moto.endpoint);
  try {
    const env = { ...ctx.env, AWS_ENDPOINT_URL_EC2: proxy.endpoint, AWS_REGION: 'us-east-1' };
    const node = process.execPath;
    const rows = [];

    // --- resolve ------------------------------------------------------------------------
    const expect = (r) => {
      if (!/^\d+\.\d+\.\d+\.\d+\n$/.test(r.stdout)) throw new Error(`unexpected resolve output: ${JSON.stringify(r.stdout)} ${r.stderr}`);
      return r.ms;
    };
    const warmHome = ctx.tmpdir('tagssh-bench-warm-');
    const awsArgs = [
      'ec2',
      'describe-instances',
      '--filters',
      `Name=tag:Name,Values=${name}`,
      '--query',
      'Reservations[].Instances[].PublicIpAddress',
      '--output',
      'text',
    ];
    const body = `Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3AName&Filter.1.Value.1=${encodeURIComponent(name)}`;
    const script = roundTripScript(proxy.endpoint, body);
    // Round-robin, so that the load of other processes on the machine hits every variant alike.
    const m = await ctx.medians(
      {
        cold: async () => expect(await ctx.spawnTimed(node, [ctx.tagssh, 'resolve', name], { ...env, TAGSSH_HOME: ctx.tmpdir('tagssh-bench-cold-') })),
        warm: async () => expect(await ctx.spawnTimed(node, [ctx.tagssh, 'resolve', name], { ...env, TAGSSH_HOME: warmHome })),
        // The same command through @aws-sdk/client-ec2: what the lean client must beat by 1.5x to stay.
        sdk: async () => expect(await ctx.spawnTimed(node, [ctx.tagssh, 'resolve', name], { ...env, TAGSSH_HOME: warmHome, TAGSSH_EC2_CLIENT: 'sdk' })),
        aws: async () => (await ctx.spawnTimed('aws', awsArgs, env)).ms,
        base: async () => (await ctx.spawnTimed(node, ['-e', script], env)).ms,
        bare: async () => (await ctx.spawnTimed(node, ['-e', '0'], env)).ms,
      },
      ctx.runs,
      { warmup: 2 },
    );
    const { cold, warm, aws, base, bare, sdk } = m;

    const coldRatio = aws.median_ms / cold.median_ms;
    rows.push({
      name: 'resolve NAME, cold cache',
      tagssh: cold,
      incumbent: { ...aws, label: 'aws ec2 describe-instances --filters' },
      ratio: coldRatio,
      target: '>= 5x faster',
      pass: coldRatio >= 5,
    });
    const warmRatio = warm.median_ms / base.median_ms;
    rows.push({
      name: 'resolve NAME, warm cache',
      tagssh: warm,
      incumbent: { ...base, label: 'node -e + 1 round trip' },
      ratio: warmRatio,
      target: '<= 1.5x of baseline',
      pass: warmRatio <= 1.5,
      note: `bare \`node -e 0\` took ${bare.median_ms.toFixed(0)} ms; the aws CLI took ${aws.median_ms.toFixed(0)} ms`,
    });

    const sdkRatio = sdk.median_ms / warm.median_ms;
    rows.push({
      name: 'resolve NAME, lean client vs the AWS SDK',
      tagssh: warm,
      incumbent: { ...sdk, label: 'tagssh resolve with TAGSSH_EC2_CLIENT=sdk' },
      ratio: sdkRatio,
      target: '>= 1.5x faster (else drop the lean client)',
      pass: sdkRatio >= 1.5,
    });

    // --- list (a failure here keeps the resolve rows) -------------------------------------
    try {
      rows.push(...(await listRow(ctx, env, proxy, listTotal)));
    } catch (e) {
      rows.push({
        name: `list ${listTotal} instances in ${LIST_REGIONS.length} regions`,
        tagssh: null,
        incumbent: null,
        target: '> 1x faster',
        pass: false,
        note: `failed: ${e.message}`,
      });
    }
    return rows;
  } finally {
    await proxy.close();
  }
}

/** tagssh list (3 regions) against the aws CLI (1 region), both replayed through `proxy`. */
async function listRow(ctx, env, proxy, listTotal) {
  const node = process.execPath;
  const listRuns = Math.max(3, Math.min(ctx.runs, 5));
  const listArgs = [ctx.tagssh, 'list', '--json', '--cache', 'off', '--region', LIST_REGIONS.join(',')];
  let listed = 0;
  let awsListed = 0;
  // Record moto's answers once, untimed and without client timeouts: rendering thousands of
  // instances takes moto minutes on a loaded machine.
  ctx.log(`recording moto's answers for ${listTotal} instances (untimed; slow)`);
  // `--page-size 1000` makes the aws CLI page like tagssh (MaxResults=1000): the same request
  // body, so both replay the same recorded answer and moto renders each region only once.
  const awsListArgs = ['ec2', 'describe-instances', '--region', LIST_REGIONS[0], '--page-size', '1000', '--output', 'json'];
  await ctx.spawnTimed(node, listArgs, { ...env, TAGSSH_AWS_TIMEOUT_MS: '900000' });
  await ctx.spawnTimed('aws', [...awsListArgs, '--cli-read-timeout', '0'], env);
  let sdkListed = 0;
  const sdkEnv = { ...env, TAGSSH_EC2_CLIENT: 'sdk' };
  const { tlist, alist, slist } = await ctx.medians(
    {
      tlist: async () => {
        const r = await ctx.spawnTimed(node, listArgs, env);
        listed = JSON.parse(r.stdout).length;
        return r.ms;
      },
      // The app's list refresh goes through @aws-sdk/client-ec2 (a long-running engine); here in
      // a fresh process, so the figure includes loading the SDK once: an upper bound for the app.
      slist: async () => {
        const r = await ctx.spawnTimed(node, listArgs, sdkEnv);
        sdkListed = JSON.parse(r.stdout).length;
        return r.ms;
      },
      alist: async () => {
        const r = await ctx.spawnTimed('aws', awsListArgs, env);
        awsListed = JSON.parse(r.stdout).Reservations.reduce((n, res) => n + res.Instances.length, 0);
        return r.ms;
      },
    },
    listRuns,
  );
  if (listed !== listTotal) throw new Error(`tagssh list returned ${listed} instances, expected ${listTotal}`);
  if (sdkListed !== listTotal) throw new Error(`tagssh list (SDK) returned ${sdkListed} instances, expected ${listTotal}`);
  const listRatio = alist.median_ms / tlist.median_ms;
  const sdkRatio = alist.median_ms / slist.median_ms;
  const sdkRow = {
    name: `app list refresh with the AWS SDK: ${sdkListed} instances in ${LIST_REGIONS.length} regions`,
    tagssh: slist,
    incumbent: { ...alist, label: `aws CLI, ${awsListed} in 1 region` },
    ratio: sdkRatio,
    target: '> 1x faster',
    pass: sdkRatio > 1,
    note: `lean client: ${tlist.median_ms.toFixed(0)} ms; fresh process, so SDK load time is included`,
  };
  return [
    sdkRow,
    {
      name: `list ${listed} instances in ${LIST_REGIONS.length} regions`,
      tagssh: tlist,
      incumbent: { ...alist, label: `aws CLI, ${awsListed} in 1 region` },
      ratio: listRatio,
      target: '> 1x faster',
      pass: listRatio > 1,
      note: `replay proxy: ${JSON.stringify(proxy.stats())}`,
    },
  ].reverse();
}
