// The SSH lab every section that compares TagSSH with OpenSSH stands on: a real sshd (the tests'
// test/lab/sshd.ts) on a loopback alias, one fresh ed25519 client key it accepts, optionally an
// instance on moto whose Elastic IP is that alias (so `tagssh … NAME` reaches it), and the OpenSSH
// options that make `ssh`/`scp`/`sftp` log in with that key alone, unattended, with their own
// known_hosts. Both sides of a comparison use the same sshd, key and trust.
import { join } from 'node:path';

/** A module of this checkout, loaded through tsx (labs under test/, engine modules under src/). */
export async function load(ctx, rel) {
  const { tsImport } = await import('tsx/esm/api');
  return tsImport(join(ctx.root, rel), import.meta.url);
}

/** The image the sections' instances are launched from (one moto ships). */
export const LAB_IMAGE = 'ami-1e749f67';

/** OpenSSH without prompts, with its own known_hosts: a first-seen host key trusted, a changed one refused. */
export function unattendedArgs(knownHosts) {
  return ['-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'StrictHostKeyChecking=accept-new', '-o', 'LogLevel=ERROR'];
}

/** OpenSSH (ssh, scp, sftp) with no config file, logging in with `identity` alone, unattended. */
export function opensshArgs(identity, knownHosts) {
  return ['-F', 'none', '-i', identity, '-o', 'IdentitiesOnly=yes', ...unattendedArgs(knownHosts)];
}

/**
 * Starts the lab on `address` in a fresh temp dir (`prefix`). With `name`, seeds an instance of
 * that Name (from `imageId`) on the address, tagged with the sshd's user and port. `sshd`: more of
 * the lab sshd's options (test/lab/sshd.ts), e.g. { maxSessions: 2 }. stop() ends the
 * sshd and removes its files; the section's temp dir goes with the run.
 */
export async function startSshLab(ctx, { address, prefix, name, imageId = LAB_IMAGE, sshd = {} }) {
  const { startSshd, makeKey, cleanupSshd } = await load(ctx, 'test/lab/sshd.ts');
  const dir = ctx.tmpdir(prefix);
  const key = makeKey(join(dir, 'keys'), 'ed25519');
  const host = await startSshd({ ...sshd, address, authorizedKeys: [key.publicKey] });
  const stop = async () => {
    await host.stop();
    cleanupSshd(host);
  };
  const lab = {
    address,
    dir,
    key,
    host,
    /** The tags that point `tagssh` at this sshd: its login user and port. */
    tags: { 'tagssh:user': host.user, 'tagssh:port': String(host.port) },
    /** The environment for the clients: the run's, with HOME in the lab (no ~/.ssh of the machine's). */
    env: { ...ctx.env, HOME: dir },
    /** `user@address` for OpenSSH. */
    login: `${host.user}@${address}`,
    /** OpenSSH's trust and prompt options alone, for a client that reads its own config (-F FILE). */
    unattendedArgs: unattendedArgs(join(dir, 'known_hosts')),
    /** OpenSSH options shared by ssh, scp and sftp: no config, this key only, unattended. */
    opensshArgs: opensshArgs(key.privatePath, join(dir, 'known_hosts')),
    stop,
  };
  if (name !== undefined) {
    try {
      const { seedInstance } = await load(ctx, 'test/lab/seed.ts');
      await seedInstance(await ctx.ec2(), { name, eip: address, imageId, tags: lab.tags });
    } catch (e) {
      await stop();
      throw e;
    }
  }
  return lab;
}
