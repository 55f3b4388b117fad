// SSM rows of the transports section, each against the plain path to the same sshd:
// - connect + `true`: the whole `tagssh ssh` CLI with --transport ssm (StartSession, WebSocket,
//   handshake, then SSH) next to the same CLI to a public address;
// - throughput: ssh2 over a Session Manager port session (the data channel TagSSH speaks itself,
//   src/node/ssm/) against the same ssh2 over plain TCP. The Session Manager side is the test lab's (test/lab/ssmServer.ts): StartSession and the
// agent's end of the data channel on loopback, so the figure is the protocol's own cost (1 KiB
// frames, a SHA-256 digest and an acknowledgement per frame), not AWS's network.
import { join } from 'node:path';
import { LAB_IMAGE, load, startSshLab } from './sshLab.mjs';
import { connectVsDirect, streamVsDirect } from './sshStream.mjs';

const ADDRESS = '127.0.0.31';

export async function ssmRows(ctx) {
  const { loginOver } = await load(ctx, 'test/lab/sshd.ts');
  const { startSsmLab } = await load(ctx, 'test/lab/ssmServer.ts');
  const { openSsmSocket } = await load(ctx, 'src/node/ssm/socket.ts');
  const { resetSsmClients } = await load(ctx, 'src/node/ssm/api.ts');
  const ssh = await startSshLab(ctx, { address: ADDRESS, prefix: 'tagssh-bench-ssm-', name: 'bench-direct' });
  const { dir, key, host, tags } = ssh;
  const lab = await startSsmLab();
  const saved = { ...process.env };
  const id = 'i-0bench0000000ssm1';
  lab.nodes.set(id, { sshHost: ADDRESS });
  Object.assign(process.env, lab.env, {
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_CONFIG_FILE: join(dir, 'none'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'),
  });
  resetSsmClients();
  const bytes = (ctx.quick ? 8 : 64) * 1048576;
  const rows = [];
  try {
    const ec2 = await ctx.ec2();
    const { privateSubnet, seedInstance } = await load(ctx, 'test/lab/seed.ts');
    const priv = await seedInstance(ec2, { name: 'bench-ssm', subnetId: await privateSubnet(ec2), imageId: LAB_IMAGE, tags });
    lab.nodes.set(priv.id, { sshHost: ADDRESS });
    const env = { ...ctx.env, ...lab.env, HOME: dir };
    ctx.log('SSM vs direct: connect + true');
    const m = await connectVsDirect(ctx, { env, key, via: 'bench-ssm', viaArgs: ['--transport', 'ssm'], direct: 'bench-direct' });
    rows.push({
      name: 'connect + run `true` over SSM (tagssh ssh --transport ssm)',
      tagssh: { median_ms: m.via.median_ms },
      incumbent: { median_ms: m.direct.median_ms, label: 'tagssh ssh to a public address' },
      ratio: Number((m.via.median_ms / m.direct.median_ms).toFixed(2)),
      note: 'StartSession, WebSocket and the agent handshake on loopback: the cost TagSSH adds, not AWS round trips',
    });

    const runs = ctx.quick ? 1 : Math.min(3, ctx.runs);
    ctx.log(`SSM vs direct: ${bytes / 1048576} MiB × ${runs}`);
    const viaSocket = await openSsmSocket({ instanceId: id, region: 'us-east-1', port: host.port });
    const { via: ssmMiBps, direct: directMiBps } = await streamVsDirect(loginOver, { host, key, address: ADDRESS, viaSocket, bytes, runs, what: 'SSM' });
    return [
      ...rows,
      {
        name: `SSM port session: ssh stream ${bytes / 1048576} MiB (MiB/s)`,
        tagssh: { value: Number(ssmMiBps.toFixed(1)), unit: 'MiB/s' },
        incumbent: { value: Number(directMiBps.toFixed(1)), unit: 'MiB/s', label: 'same ssh2 over plain TCP' },
        ratio: Number((ssmMiBps / directMiBps).toFixed(3)),
        note: 'loopback lab agent; 1 KiB frames as the session-manager-plugin sends them; same bytes checked by SHA-256',
      },
    ];
  } finally {
    resetSsmClients();
    process.env = saved;
    await lab.stop();
    await ssh.stop();
  }
}
