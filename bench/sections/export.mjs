// Exports: connecting by Name through an exported ssh config (`ssh alias` → `tagssh proxy`)
// against what people glue together today (`aws ec2 describe-instances` for the IP, then ssh).
// Both ends talk to the same moto and the same local sshd on 127.0.0.5.
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';

export const title = 'Exports: ssh by Name via tagssh proxy (vs aws CLI + ssh)';

const ADDRESS = '127.0.0.5';
const NAME = 'bench-ssh';

function freePort(host) {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(host, port, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise((r) => {
      const s = net.connect({ host, port });
      s.once('connect', () => (s.destroy(), r(true)));
      s.once('error', () => r(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`sshd on ${host}:${port} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function keygen(path, type = 'ed25519') {
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-f', path]);
  chmodSync(path, 0o600);
}

export async function run(ctx) {
  const dir = ctx.tmpdir('tagssh-bench-export-');
  const user = process.env.USER ?? execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'client_key'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')));
  const port = await freePort(ADDRESS);
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `ListenAddress ${ADDRESS}:${port}`,
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'UsePAM no',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'MaxStartups 100:30:200',
    ].join('\n') + '\n',
  );
  mkdirSync('/run/sshd', { recursive: true });
  const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: 'ignore' });
  try {
    await waitForPort(ADDRESS, port);
    const { RunInstancesCommand, AllocateAddressCommand, AssociateAddressCommand } = await import('@aws-sdk/client-ec2');
    const ec2 = await ctx.ec2('us-east-1');
    const runRes = await ec2.send(
      new RunInstancesCommand({
        ImageId: 'ami-12c6146b',
        InstanceType: 't3.micro',
        MinCount: 1,
        MaxCount: 1,
        TagSpecifications: [
          {
            ResourceType: 'instance',
            Tags: [
              { Key: 'Name', Value: NAME },
              { Key: 'tagssh:port', Value: String(port) },
            ],
          },
        ],
      }),
    );
    const alloc = await ec2.send(new AllocateAddressCommand({ Domain: 'vpc', Address: ADDRESS }));
    await ec2.send(new AssociateAddressCommand({ AllocationId: alloc.AllocationId, InstanceId: runRes.Instances[0].InstanceId }));

    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'tagssh'), `#!/bin/sh\nexec "${process.execPath}" "${ctx.tagssh}" "$@"\n`);
    chmodSync(join(bin, 'tagssh'), 0o755);
    const env = { ...ctx.env, PATH: `${bin}:${process.env.PATH}`, AWS_REGION: 'us-east-1' };
    const cfg = join(dir, 'ssh_config');
    ctx.log('sshd up, instance seeded; timing tagssh export ssh-config');
    const exp = await ctx.median(
      async () =>
        (
          await ctx.spawnTimed(
            process.execPath,
            [ctx.tagssh, 'export', 'ssh-config', NAME, '--file', cfg, '--user', user, '--identity', join(dir, 'client_key')],
            env,
          )
        ).ms,
      3,
    );
    const common = [
      '-o',
      'BatchMode=yes',
      '-o',
      `UserKnownHostsFile=${join(dir, 'known_hosts')}`,
      '-o',
      'StrictHostKeyChecking=accept-new',
      '-o',
      'IdentityAgent=none',
    ];
    const n = ctx.quick ? 2 : Math.min(ctx.runs, 3);
    ctx.log('ssh by Name through the exported config (tagssh proxy)');
    const viaProxy = await ctx.median(async () => (await ctx.spawnTimed('ssh', ['-F', cfg, ...common, NAME, 'true'], env)).ms, n);
    ctx.log('aws ec2 describe-instances for the IP, then ssh to it');
    const glue = `ip=$(aws ec2 describe-instances --endpoint-url ${ctx.moto.endpoint} --region us-east-1 --filters Name=tag:Name,Values=${NAME} Name=instance-state-name,Values=running --query 'Reservations[0].Instances[0].PublicIpAddress' --output text) && ssh -F none ${common.join(' ')} -o HostKeyAlias=bench -i ${join(dir, 'client_key')} -p ${port} ${user}@$ip true`;
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
    sshd.kill('SIGTERM');
  }
}
