import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// Builds EC2 console output the way cloud-init's keys-to-console module writes it
// (/usr/lib/cloud-init/write-ssh-key-fingerprints: `ssh-keygen -l` per host key, piped through
// `logger -s -t ec2`), for host keys we hold — so a test can make the "console" vouch for a real sshd.

export type ConsoleStyle = 'sha256' | 'md5';

export function cloudInitConsole(publicKeyPaths: string[], style: ConsoleStyle = 'sha256', hostname = 'ip-172-31-20-5'): string {
  const fp = publicKeyPaths.map((p) => {
    const line = execFileSync('ssh-keygen', ['-l', '-E', style, '-f', p], { encoding: 'utf8' }).trim();
    // "256 SHA256:… comment (ED25519)" — cloud-init shows root@host as the comment; old images printed bare MD5 hex.
    const [bits, print, ...rest] = line.split(' ');
    const family = rest[rest.length - 1];
    return `${bits} ${style === 'md5' ? print!.replace(/^MD5:/, '') : print} ${style === 'md5' ? ' ' : ''}root@${hostname} ${family}`;
  });
  const keys = publicKeyPaths.map((p) => readFileSync(p, 'utf8').trim().split(' ').slice(0, 2).join(' ') + ` root@${hostname}`);
  const ec2 = (s: string) => `<14>Nov 29 23:10:11 ec2: ${s}`;
  return [
    '[    0.000000] Linux version 6.2.0-1017-aws (buildd@lcy02-amd64-044) (x86_64-linux-gnu-gcc-12 (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0) #17~22.04.1-Ubuntu SMP',
    '[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-6.2.0-1017-aws root=PARTUUID=3ad8a0de-01 ro console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295',
    `[   12.431907] cloud-init[561]: Cloud-init v. 23.3.3-0ubuntu0~22.04.1 running 'modules:config' at Sun, 29 Nov 2026 23:10:09 +0000. Up 12.38 seconds.`,
    `ci-info: ++++++++++++++++Authorized keys from /home/ubuntu/.ssh/authorized_keys for user ubuntu++++++++++++++++`,
    'ci-info: +---------+-------------------------------------------------+---------+---------+',
    'ci-info: | Keytype |                Fingerprint (sha256)             | Options | Comment |',
    'ci-info: +---------+-------------------------------------------------+---------+---------+',
    'ci-info: | ssh-rsa | 1f:0e:4d:8a:3c:aa:7e:61:22:90:1b:5d:3f:c4:0e:77 |    -    | my-key  |',
    'ci-info: +---------+-------------------------------------------------+---------+---------+',
    ec2(''),
    ec2('#############################################################'),
    ec2('-----BEGIN SSH HOST KEY FINGERPRINTS-----'),
    ...fp.map(ec2),
    ec2('-----END SSH HOST KEY FINGERPRINTS-----'),
    ec2('#############################################################'),
    '-----BEGIN SSH HOST KEY KEYS-----',
    ...keys,
    '-----END SSH HOST KEY KEYS-----',
    `[   13.104556] cloud-init[587]: Cloud-init v. 23.3.3-0ubuntu0~22.04.1 finished at Sun, 29 Nov 2026 23:10:11 +0000. Datasource DataSourceEc2Local.  Up 13.09 seconds`,
    '',
  ].join('\n');
}
