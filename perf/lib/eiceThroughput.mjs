// EICE rows of the transports section, each against the plain path to the same sshd:
// - connect + `true`: the whole `tagssh ssh` CLI choosing the endpoint by itself (auto: no public
//   address, an endpoint in the VPC) next to the same CLI to a public address;
// - throughput: ssh2 over the EC2 Instance Connect Endpoint WebSocket (src/node/transport/eice.ts)
//   against the same ssh2 over plain TCP. The endpoint is the test lab's (test/lab/eiceServer.ts,
//   SigV4 checked, frames piped to the sshd) on loopback, so the figure is the WebSocket framing's
//   own cost, not AWS's network.
import { LAB_IMAGE, load, startSshLab } from './sshLab.mjs';
import { connectVsDirect, streamVsDirect } from './sshStream.mjs';

const ADDRESS = '127.0.0.32';

export async function eiceRows(ctx) {
  const { loginOver } = await load(ctx, 'test/lab/sshd.ts');
  const { startEiceLab } = await load(ctx, 'test/lab/eiceServer.ts');
  const { privateSubnet, seedInstance } = await load(ctx, 'test/lab/seed.ts');
  const { openEiceSocket } = await load(ctx, 'src/node/transport/eice.ts');
  const { resetClients } = await load(ctx, 'src/node/aws/config/clients.ts');
  const { DescribeSubnetsCommand } = await import('@aws-sdk/client-ec2');
  const ssh = await startSshLab(ctx, { address: ADDRESS, prefix: 'tagssh-bench-eice-', name: 'bench-eice-direct' });
  const { dir, key, host, tags } = ssh;
  const ec2 = await ctx.ec2();
  const subnetId = await privateSubnet(ec2);
  const vpcId = (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] }))).Subnets[0].VpcId;
  const priv = await seedInstance(ec2, { name: 'bench-eice', subnetId, imageId: LAB_IMAGE, tags });
  const endpoint = { id: 'eice-0bench00000000001', vpcId, subnetId, addresses: [priv.privateIp] };
  const lab = await startEiceLab({ upstream: ctx.moto.endpoint, endpoints: [endpoint] });
  lab.route.set(`${priv.privateIp}:${host.port}`, { host: ADDRESS, port: host.port });
  const saved = { ...process.env };
  Object.assign(process.env, ctx.moto.env, lab.env);
  resetClients();
  const bytes = (ctx.quick ? 8 : 64) * 1048576;
  const rows = [];
  try {
    const env = { ...ctx.env, ...lab.env, HOME: dir };
    ctx.log('EICE vs direct: connect + true');
    const m = await connectVsDirect(ctx, { env, key, via: 'bench-eice', direct: 'bench-eice-direct' });
    rows.push({
      name: 'connect + run `true` over EICE (tagssh ssh, auto picks the endpoint)',
      tagssh: { median_ms: m.via.median_ms },
      incumbent: { median_ms: m.direct.median_ms, label: 'tagssh ssh to a public address' },
      ratio: Number((m.via.median_ms / m.direct.median_ms).toFixed(2)),
      note: 'DescribeInstanceConnectEndpoints, presigning and the WebSocket upgrade on loopback: the cost TagSSH adds, not AWS round trips',
    });

    const runs = ctx.quick ? 1 : Math.min(3, ctx.runs);
    ctx.log(`EICE vs direct: ${bytes / 1048576} MiB × ${runs}`);
    const instance = { id: priv.id, region: 'us-east-1', name: 'bench-eice', privateIp: priv.privateIp, vpcId, subnetId, tags };
    const viaSocket = await openEiceSocket({ instance, port: host.port, endpoint: { id: endpoint.id, dnsName: 'unused', vpcId, subnetId } });
    const { via: eiceMiBps, direct: directMiBps } = await streamVsDirect(loginOver, { host, key, address: ADDRESS, viaSocket, bytes, runs, what: 'EICE' });
    rows.push({
      name: `EICE tunnel: ssh stream ${bytes / 1048576} MiB (MiB/s)`,
      tagssh: { value: Number(eiceMiBps.toFixed(1)), unit: 'MiB/s' },
      incumbent: { value: Number(directMiBps.toFixed(1)), unit: 'MiB/s', label: 'same ssh2 over plain TCP' },
      ratio: Number((eiceMiBps / directMiBps).toFixed(3)),
      note: 'loopback lab endpoint (SigV4 checked, WebSocket binary frames to the sshd); same bytes checked by SHA-256',
    });
    return rows;
  } finally {
    process.env = saved;
    resetClients();
    await lab.close();
    await ssh.stop();
  }
}
