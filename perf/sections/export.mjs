// Exports: connecting by Name through an exported ssh config (`ssh alias` → `tagssh proxy`)
// against what people glue together today (`aws ec2 describe-instances` for the IP, then ssh).
// Both ends talk to the same moto and the same local sshd on 127.0.0.5.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSshLab } from '../lib/sshLab.mjs';

export const title = 'Exports: ssh by Name via tagssh proxy (vs aws CLI + ssh)';

const ADDRESS = '127.0.0.5';
const NAME = 'bench-ssh';

export async function run(ctx) {
  const lab = await startSshLab(ctx, { address: ADDRESS, prefix: 'tagssh-bench-export-', name: NAME, imageId: 'ami-12c6146b' });
  const { dir, host, key } = lab;
  const user = host.user;
  const port = host.port;
  try {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'tagssh'), `#!/bin/sh\nexec "${process.execPath}" "${ctx.tagssh}" "$@"\n`);
    chmodSync(join(bin, 'tagssh'), 0o755);
    const env = { ...ctx.env, PATH: `${bin}:${process.env.PATH}`, AWS_REGION: 'us-east-1' };
    const cfg = join(dir, 'ssh_config');
    ctx.log('sshd up, instance seeded; timing tagssh export ssh-config');
    const exp = await ctx.median(
      async () =>
        (await ctx.spawnTimed(process.execPath, [ctx.tagssh, 'export', 'ssh-config', NAME, '--file', cfg, '--user', user, '--identity', key.privatePath], env))
          .ms,
      3,
    );
    const common = [...lab.unattendedArgs, '-o', 'IdentityAgent=none'];
    const n = ctx.quick ? 2 : Math.min(ctx.runs, 3);
    ctx.log('ssh by Name through the exported config (tagssh proxy)');
    const viaProxy = await ctx.median(async () => (await ctx.spawnTimed('ssh', ['-F', cfg, ...common, NAME, 'true'], env)).ms, n);
    ctx.log('aws ec2 describe-instances for the IP, then ssh to it');
    const glue = `ip=$(aws ec2 describe-instances --endpoint-url ${ctx.moto.endpoint} --region us-east-1 --filters Name=tag:Name,Values=${NAME} Name=instance-state-name,Values=running --query 'Reservations[0].Instances[0].PublicIpAddress' --output text) && ssh -F none ${common.join(' ')} -o HostKeyAlias=bench -i ${key.privatePath} -p ${port} ${user}@$ip true`;
    const viaAws = await ctx.median(async () => (await ctx.spawnTimed('/bin/sh', ['-c', glue], env)).ms, n);
    return [
      {
        name: `ssh ${NAME} true (resolve + connect + exec)`,
        tagssh: { median_ms: viaProxy.median_ms },
        incumbent: { median_ms: viaAws.median_ms, label: 'aws describe-instances + ssh' },
        ratio: viaAws.median_ms / viaProxy.median_ms,
        target: '>= 1x (no slower than the aws CLI glue)',
        pass: viaAws.median_ms >= viaProxy.median_ms,
      },
      { name: 'tagssh export ssh-config (1 instance, list + write)', tagssh: { median_ms: exp.median_ms }, incumbent: null, note: 'informational' },
    ];
  } finally {
    await lab.stop();
  }
}
