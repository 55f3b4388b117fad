import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A `credential_process` that issues short-lived credentials, the way SSO, assume-role and
// IMDS credentials expire in real accounts, plus the record an EC2 fault proxy checks them
// against: every issued key with its expiry, one line each ("AKID expiresAtMs"). failing(true)
// makes it fail as a credential_process does when its login has lapsed (a message on stderr,
// exit 1), until failing(false).

export interface ShortCredentials {
  /** The command line for ~/.aws/config's credential_process. */
  command: string;
  /** Keys issued so far. */
  issued(): Array<{ key: string; expires: number }>;
  /** True when `key` was issued and has not expired. */
  valid(key: string | undefined): boolean;
  /** From now on the process issues nothing and exits 1 (true), or issues again (false). */
  failing(on: boolean): void;
}

export function shortCredentials(dir: string, lifetimeSeconds: number, secret = 'short-lived-secret'): ShortCredentials {
  const script = join(dir, 'issue-credentials.cjs');
  const registry = join(dir, 'issued.txt');
  const failFlag = join(dir, 'credential-process-fails');
  writeFileSync(registry, '');
  writeFileSync(
    script,
    `const fs = require('fs');
if (fs.existsSync(${JSON.stringify(failFlag)})) {
  process.stderr.write('The login behind these credentials has lapsed: sign in again.\\n');
  process.exit(1);
}
const key = 'ASIA' + Date.now().toString(36).toUpperCase() + Math.random().toString(36).slice(2, 8).toUpperCase();
const expires = Date.now() + ${lifetimeSeconds * 1000};
fs.appendFileSync(${JSON.stringify(registry)}, key + ' ' + expires + '\\n');
process.stdout.write(JSON.stringify({ Version: 1, AccessKeyId: key, SecretAccessKey: ${JSON.stringify(secret)}, SessionToken: 'token-' + key, Expiration: new Date(expires).toISOString() }));
`,
  );
  const issued = () =>
    readFileSync(registry, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [key, expires] = l.split(' ');
        return { key: key!, expires: Number(expires) };
      });
  return {
    command: `${process.execPath} ${script}`,
    issued,
    valid: (key) => issued().some((i) => i.key === key && i.expires > Date.now()),
    failing: (on) => (on ? writeFileSync(failFlag, '') : rmSync(failFlag, { force: true })),
  };
}
