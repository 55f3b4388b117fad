import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { startSshAgent, type SshAgent } from '../../../lab/sshAgent.js';
import { connect, type ConnectOptions } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import type { SecretQuestion } from '../../../../src/node/ssh/authHandler.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { detailsOf } from '../../../../src/common/errorDetails.js';
import type { AppError } from '../../../../src/common/errors.js';
import { cliWords } from '../../../../src/node/cli/errorWords.js';

// Logins as a Tera Term user brings them, against a real OpenSSH sshd: PuTTY keys (.ppk v2 and
// v3, made by Debian's puttygen, with and without a passphrase), a wrong key and an unreadable one
// (the error names that cause first), a password and keyboard-interactive login (sshd with
// PasswordAuthentication / KbdInteractiveAuthentication, a test user with a password made here and
// removed after), LANG/LC_* sent as OpenSSH's SendEnv (sshd's AcceptEnv), and agent forwarding.

const PW_USER = 'tagssh-pw';
const PASSWORD = 'Tera Term 5!';
let dir: string;
let host: SshdHost;
let pwHost: SshdHost;
let agent: SshAgent;
let store: KnownHostsStore;
const keys: Record<string, KeyPair> = {};
const ppk: Record<string, string> = {};

function target(extra: Partial<ConnectTarget> = {}, on: SshdHost = host): ConnectTarget {
  return { host: on.address, port: on.port, user: on.user, label: 'lab', acceptNewHostKey: true, ...extra };
}
function opts(extra: Partial<ConnectOptions> = {}): ConnectOptions {
  return { knownHosts: store, consoleOutput: null, agent: null, timeoutMs: 10_000, ...extra };
}
const authDetails = (e: AppError) => detailsOf(e.toJSON(), 'AUTH_FAILED');

/** A key made by puttygen: `version` 2 or 3, encrypted when a passphrase is given. */
function puttyKey(name: string, type: 'ed25519' | 'rsa' | 'ecdsa', version: 2 | 3, passphrase?: string): string {
  const out = join(dir, 'putty', `${name}.ppk`);
  const passFile = join(dir, 'putty', `${name}.pass`);
  writeFileSync(passFile, passphrase ?? '');
  execFileSync('mkdir', ['-p', join(dir, 'putty')]);
  const args = ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-o', out, '--new-passphrase', passphrase ? passFile : '/dev/null'];
  if (version === 2) args.push('--ppk-param', 'version=2');
  execFileSync('puttygen', args);
  rmSync(passFile);
  return out;
}
const puttyPublic = (path: string, passphrase?: string) => {
  const passFile = join(dir, 'putty', 'old.pass');
  writeFileSync(passFile, passphrase ?? '');
  try {
    return execFileSync('puttygen', [path, '-O', 'public-openssh', ...(passphrase ? ['--old-passphrase', passFile] : [])], { encoding: 'utf8' }).trim();
  } finally {
    rmSync(passFile);
  }
};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-login-'));
  execFileSync('mkdir', ['-p', join(dir, 'putty')]);
  keys.good = makeKey(join(dir, 'keys'), 'ed25519', { name: 'id_good' });
  keys.wrong = makeKey(join(dir, 'keys'), 'ed25519', { name: 'id_wrong' });
  keys.forwarded = makeKey(join(dir, 'keys'), 'ed25519', { name: 'id_forwarded' });
  ppk.v2rsa = puttyKey('v2-rsa', 'rsa', 2);
  ppk.v2ed = puttyKey('v2-ed25519', 'ed25519', 2, 'v2 pass');
  ppk.v3ed = puttyKey('v3-ed25519', 'ed25519', 3);
  ppk.v3ecdsa = puttyKey('v3-ecdsa', 'ecdsa', 3, 'argon2 pass');
  ppk.v3rsa = puttyKey('v3-rsa', 'rsa', 3, 'argon2 rsa');
  const authorized = [
    keys.good.publicKey,
    keys.forwarded.publicKey,
    puttyPublic(ppk.v2rsa),
    puttyPublic(ppk.v2ed, 'v2 pass'),
    puttyPublic(ppk.v3ed),
    puttyPublic(ppk.v3ecdsa, 'argon2 pass'),
    puttyPublic(ppk.v3rsa, 'argon2 rsa'),
  ];
  host = await startSshd({ address: '127.0.0.2', authorizedKeys: authorized, extraConfig: ['AcceptEnv LANG LC_*'] });
  // A user with a password, for password and keyboard-interactive logins (sshd without PAM reads /etc/shadow).
  execFileSync('useradd', ['--no-create-home', '--shell', '/bin/sh', PW_USER]);
  execFileSync('chpasswd', { input: `${PW_USER}:${PASSWORD}\n` });
  pwHost = await startSshd({
    address: '127.0.0.3',
    authorizedKeys: [],
    passwords: true,
  });
  agent = await startSshAgent();
  agent.add(keys.forwarded.privatePath);
  store = new KnownHostsStore(join(dir, 'known_hosts'));
});

after(async () => {
  agent?.stop();
  await Promise.all([host?.stop(), pwHost?.stop()]);
  for (const h of [host, pwHost]) if (h) cleanupSshd(h);
  try {
    execFileSync('userdel', [PW_USER]);
  } catch {
    /* not made */
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('PuTTY keys (.ppk)', () => {
  const cases: Array<[string, string, string | undefined]> = [
    ['v2 RSA, unencrypted', 'v2rsa', undefined],
    ['v2 Ed25519, with a passphrase (SHA-1 key derivation)', 'v2ed', 'v2 pass'],
    ['v3 Ed25519, unencrypted', 'v3ed', undefined],
    ['v3 ECDSA, with a passphrase (Argon2id)', 'v3ecdsa', 'argon2 pass'],
    ['v3 RSA, with a passphrase (Argon2id)', 'v3rsa', 'argon2 rsa'],
  ];
  for (const [what, name, passphrase] of cases)
    it(`logs in with a ${what}`, async () => {
      const asked: string[] = [];
      const conn = await connect(
        target({ identityFile: ppk[name]! }),
        opts({
          askPassphrase: async (path, attempt) => {
            asked.push(path);
            return attempt === 1 && passphrase ? 'not it' : (passphrase ?? '');
          },
        }),
      );
      try {
        assert.equal((await conn.exec('echo ppk-ok')).stdout, 'ppk-ok\n');
      } finally {
        conn.close();
      }
      // A wrong passphrase is asked again, as for OpenSSH keys.
      assert.deepEqual(asked, passphrase ? [ppk[name], ppk[name]] : []);
    });

  it('an encrypted .ppk with no one to ask says so, naming the key and how to convert it', async () => {
    await assert.rejects(connect(target({ identityFile: ppk.v3ecdsa! }), opts()), (e: AppError) => {
      assert.equal(e.code, 'AUTH_FAILED');
      assert.match(e.message, /^The key file \S+v3-ecdsa\.ppk is encrypted and could not be unlocked/);
      assert.equal(authDetails(e)?.cause, 'passphrase');
      assert.equal(authDetails(e)?.ppk, true);
      return true;
    });
  });

  it('a damaged .ppk is named as the cause, with the puttygen command that converts it', async () => {
    const broken = join(dir, 'putty', 'broken.ppk');
    writeFileSync(broken, readFileSync(ppk.v3ed!, 'utf8').replace(/^Private-MAC: ./m, 'Private-MAC: 0'));
    await assert.rejects(connect(target({ identityFile: broken }), opts()), (e: AppError) => {
      assert.equal(e.code, 'AUTH_FAILED');
      assert.match(
        e.message,
        /^The key file \S+broken\.ppk cannot be used to log in to lab \(127\.0\.0\.2:\d+\): it is PuTTY key TagSSH cannot read: the file is damaged/,
      );
      assert.match(cliWords(e).hint!, /^Convert it to OpenSSH's format: puttygen \S+broken\.ppk -O private-openssh -o \S+broken\.pem/);
      assert.doesNotMatch(e.message + cliWords(e).hint, /Instance Connect/);
      return true;
    });
  });
});

describe('a refused login names the real cause first', () => {
  it('a key the server does not know: "did not accept the key", the user\'s source, never EC2 Instance Connect', async () => {
    await assert.rejects(connect(target({ identityFile: keys.wrong!.privatePath, userSource: 'settings' }), opts()), (e: AppError) => {
      assert.equal(e.code, 'AUTH_FAILED');
      assert.match(e.message, new RegExp(`^lab \\(127\\.0\\.0\\.2:\\d+\\) did not accept the key ${keys.wrong!.privatePath} as "${host.user}"`));
      assert.match(cliWords(e).hint!, /comes from Settings' default login user; if another user logs in there, name it with --user/);
      assert.doesNotMatch(e.message + cliWords(e).hint, /Instance Connect|ec2-instance-connect/);
      assert.equal(authDetails(e)?.cause, 'refused');
      assert.equal(authDetails(e)?.userSource, 'settings');
      return true;
    });
  });

  it('an unreadable key file is the cause, not the server', async () => {
    const unreadable = join(dir, 'keys', 'not-a-key');
    writeFileSync(unreadable, 'hello\n');
    chmodSync(unreadable, 0o600);
    await assert.rejects(connect(target({ identityFile: unreadable }), opts()), (e: AppError) => {
      assert.equal(authDetails(e)?.cause, 'key-format');
      assert.match(e.message, /^The key file \S+not-a-key cannot be used to log in to lab \(127\.0\.0\.2:\d+\): it is not a private key TagSSH can read/);
      return true;
    });
  });

  it('with EC2 Instance Connect left to ask, the error offers it instead of pushing a key', async () => {
    const t = target({ identityFile: keys.wrong!.privatePath, instanceId: 'i-0123456789abcdef0', region: 'us-east-1', instanceConnect: { mode: 'ask' } });
    await assert.rejects(connect(t, opts()), (e: AppError) => {
      assert.equal(authDetails(e)?.instanceConnect, 'offer');
      assert.match(cliWords(e).hint!, /Or log in once with a key pushed by EC2 Instance Connect: add --eic\.$/);
      assert.ok(!authDetails(e)?.tried.some((x) => /Instance Connect/.test(x)), 'nothing was pushed');
      return true;
    });
  });
});

describe('password and keyboard-interactive logins', () => {
  it("keyboard-interactive: the server's prompt is asked (hidden), answered once, and the login works", async () => {
    const questions: SecretQuestion[] = [];
    const conn = await connect(
      target({ user: PW_USER }, pwHost),
      opts({
        askSecret: async (q) => {
          questions.push(q);
          return q.prompts.map(() => PASSWORD);
        },
      }),
    );
    try {
      assert.equal((await conn.exec('id -un')).stdout, `${PW_USER}\n`);
    } finally {
      conn.close();
    }
    assert.equal(questions[0]?.kind, 'keyboard-interactive');
    assert.equal(questions[0]?.prompts[0]?.echo, false);
    assert.match(questions[0]!.prompts[0]!.prompt, /password/i);
  });

  it('password: with keyboard-interactive off on the server, the password method is asked for', async () => {
    // KbdInteractiveAuthentication comes first in the lab's config: a Match block turns it off for this user alone.
    const pwOnly = await startSshd({
      address: '127.0.0.4',
      authorizedKeys: [],
      passwords: true,
      extraConfig: [`Match User ${PW_USER}`, '  KbdInteractiveAuthentication no'],
    });
    try {
      const kinds: string[] = [];
      const conn = await connect(
        target({ user: PW_USER }, pwOnly),
        opts({
          askSecret: async (q) => {
            kinds.push(`${q.kind}#${q.attempt}`);
            return [q.attempt === 1 ? 'wrong one' : PASSWORD];
          },
        }),
      );
      conn.close();
      assert.deepEqual(kinds, ['password#1', 'password#2']);
    } finally {
      await pwOnly.stop();
      cleanupSshd(pwOnly);
    }
  });

  it('a refused password is said as such', async () => {
    // One wrong answer, then the person gives up (each refusal costs PAM's delay).
    const ask = async (q: SecretQuestion) => {
      if (q.kind !== 'keyboard-interactive') throw new Error('declined');
      return q.prompts.map(() => 'nope');
    };
    await assert.rejects(connect(target({ user: PW_USER }, pwHost), opts({ askSecret: ask })), (e: AppError) => {
      assert.equal(authDetails(e)?.cause, 'password-refused');
      assert.match(e.message, /did not accept the password as "tagssh-pw"/);
      return true;
    });
  });

  it('nobody to ask: keys only, and no password prompt is attempted', async () => {
    await assert.rejects(connect(target({ user: PW_USER }, pwHost), opts()), (e: AppError) => {
      assert.equal(authDetails(e)?.cause, 'nothing-to-offer');
      return true;
    });
  });
});

describe('what the session carries', () => {
  it('LANG and LC_* reach the shell (SendEnv), and only when the server accepts them', async () => {
    const conn = await connect(target({ identityFile: keys.good!.privatePath, env: { LANG: 'ja_JP.UTF-8', LC_CTYPE: 'ja_JP.UTF-8' } }), opts());
    try {
      assert.equal((await conn.exec('echo "$LANG/$LC_CTYPE"')).stdout, 'ja_JP.UTF-8/ja_JP.UTF-8\n');
      const shell = await conn.shell({ cols: 80, rows: 24 });
      let out = '';
      shell.on('data', (c: Buffer) => (out += c.toString()));
      shell.write('echo "lang=$LANG"; exit\n');
      await new Promise((r) => shell.once('close', r));
      assert.match(out, /lang=ja_JP\.UTF-8/);
    } finally {
      conn.close();
    }
  });

  it('agent forwarding: the instance can use the local agent only when asked for', async () => {
    const withAgent = opts({ agent: agent.socket });
    const fwd = await connect(target({ identityFile: keys.good!.privatePath, agentForward: true }), withAgent);
    try {
      const r = await fwd.exec('ssh-add -L');
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes(keys.forwarded!.publicKey.split(' ')[1]!), r.stdout);
    } finally {
      fwd.close();
    }
    const plain = await connect(target({ identityFile: keys.good!.privatePath }), withAgent);
    try {
      assert.notEqual((await plain.exec('ssh-add -L')).code, 0, 'no agent without forwarding');
    } finally {
      plain.close();
    }
  });
});
