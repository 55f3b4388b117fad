import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance } from '../../../lab/seed.js';
import { cleanupSshd, startSshd, type SshdHost } from '../../../lab/sshd.js';
import { runProcess, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// Password logins in the terminal, as a Tera Term user brings them: `tagssh ssh NAME` on a real
// pseudo-terminal against a real sshd that takes keyboard-interactive answers (through PAM) shows
// the server's own prompt, reads the answer without echoing it, and logs in; with only the
// password method on the server it asks "user@NAME's password:" as ssh does, and asks again after
// a refusal. Nothing typed is kept: no file under the home holds the password afterwards.

const root = join(import.meta.dirname, '../../../..');
const USER = 'tagssh-cli-kbd';
const PASSWORD = 'kbd answer 7!';
let lab: CliLab;
let pwOnly: SshdHost;

/** The sshd's own log (stderr), where it says which method accepted the login. */
const sshdLog = (h: SshdHost) => (h as SshdHost & { log: string }).log;

before(async () => {
  try {
    execFileSync('userdel', [USER], { stdio: 'ignore' });
  } catch {
    /* not there from an earlier run */
  }
  execFileSync('useradd', ['--no-create-home', '--shell', '/bin/sh', USER]);
  execFileSync('chpasswd', { input: `${USER}:${PASSWORD}\n` });
  lab = await startCliLab({ prefix: 'tagssh-cli-kbd-', keyName: 'kbd-key', sshd: { address: '127.0.0.8', passwords: true } });
  // The same user on a server that offers the password method alone (a Match block: sshd keeps a keyword's first value).
  pwOnly = await startSshd({
    address: '127.0.0.9',
    authorizedKeys: [],
    passwords: true,
    extraConfig: [`Match User ${USER}`, '  KbdInteractiveAuthentication no'],
  });
  await seedInstance(lab.ec2, { name: 'kbd-host', eip: lab.host.address, tags: { 'tagssh:port': String(lab.host.port) } });
  await seedInstance(lab.ec2, { name: 'pw-host', eip: pwOnly.address, tags: { 'tagssh:port': String(pwOnly.port) } });
});

after(async () => {
  await pwOnly?.stop();
  if (pwOnly) cleanupSshd(pwOnly);
  await lab?.stop();
  try {
    execFileSync('userdel', [USER]);
  } catch {
    /* not made */
  }
});

/** `tagssh ssh NAME --user USER` on a real PTY, driven by `steps` (ptyDriver.py's script). */
function sshOnPty(name: string, steps: Array<[string, string]>): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    ...lab.moto.env,
    HOME: lab.home,
    TAGSSH_HOME: join(lab.home, 'tagssh'),
    TERM: 'xterm',
    SSH_AUTH_SOCK: '',
  };
  return runProcess(
    'python3',
    [join(root, 'test/lab/ptyDriver.py'), '24', '100', JSON.stringify(steps), '--', process.execPath, TAGSSH_BIN, 'ssh', name, '--user', USER, '--accept-new'],
    { env },
  );
}

/** What the terminal shows line by line: the progress line's erase-line sequences left out. */
const shown = (r: Run) =>
  r.stdout
    .split('\x1b[2K')
    .join('')
    .replace(/\r(?!\n)/g, '\n');

/** Every file under `dir` whose bytes contain `text`. */
function filesHolding(dir: string, text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    const st = statSync(p);
    if (st.isDirectory()) found.push(...filesHolding(p, text));
    else if (st.isFile() && readFileSync(p).includes(text)) found.push(p);
  }
  return found;
}

describe('tagssh ssh: password and keyboard-interactive logins on the terminal', () => {
  it("keyboard-interactive: the server's prompt, answered unseen, logs in", async () => {
    const r = await sshOnPty('kbd-host', [
      ['wait', 'Password: $'],
      ['send', `${PASSWORD}\r`],
      ['wait', '\\$ $'],
      ['send', 'echo "who=$(id -un)"; exit 0\r'],
    ]);
    // PAM's own prompt, on a line of its own (over the progress line).
    assert.match(shown(r), /^Password: \r?$/m, r.stdout);
    assert.doesNotMatch(r.stdout, /'s password:/, 'the server asked with its own prompt, not the password method');
    assert.match(r.stdout, new RegExp(`^who=${USER}\\r?$`, 'm'), r.stdout);
    assert.ok(!r.stdout.includes(PASSWORD), 'the answer was not echoed');
    assert.match(r.stdout, /EXIT:0\n$/);
    assert.match(sshdLog(lab.host), new RegExp(`Accepted keyboard-interactive/pam for ${USER}`));
  });

  it('keyboard-interactive: a wrong answer is refused and the prompt comes again, as ssh does', async () => {
    const r = await sshOnPty('kbd-host', [
      ['wait', 'Password: $'],
      ['send', 'not it\r'],
      // The second prompt, not the first one still at the end before the refusal comes back.
      ['wait', '(?s)Password: .*Password: $'],
      ['send', `${PASSWORD}\r`],
      ['wait', '\\$ $'],
      ['send', 'echo "who=$(id -un)"; exit 0\r'],
    ]);
    assert.equal(shown(r).match(/^Password: \r?$/gm)?.length, 2, r.stdout);
    assert.match(r.stdout, new RegExp(`^who=${USER}\\r?$`, 'm'), r.stdout);
    assert.ok(!r.stdout.includes(PASSWORD) && !r.stdout.includes('not it'), 'no answer was echoed');
    assert.match(r.stdout, /EXIT:0\n$/);
  });

  it('password method: asked as ssh asks it, again after a refusal, and the right one logs in', async () => {
    const r = await sshOnPty('pw-host', [
      ['wait', `${USER}@pw-host \\(127\\.0\\.0\\.9:\\d+\\)'s password: $`],
      ['send', 'not it\r'],
      ['wait', "Permission denied, please try again\\.\\s+\\S+ \\(\\S+\\)'s password: $"],
      ['send', `${PASSWORD}\r`],
      ['wait', '\\$ $'],
      ['send', 'echo "who=$(id -un)"; exit 0\r'],
    ]);
    assert.match(shown(r), /^Permission denied, please try again\.\r?$/m, r.stdout);
    assert.match(r.stdout, new RegExp(`^who=${USER}\\r?$`, 'm'), r.stdout);
    assert.ok(!r.stdout.includes(PASSWORD) && !r.stdout.includes('not it'), 'no answer was echoed');
    assert.match(r.stdout, /EXIT:0\n$/);
    assert.match(sshdLog(pwOnly), new RegExp(`Accepted password for ${USER}`));
  });

  it('no file under the home keeps what was typed', () => {
    assert.deepEqual(filesHolding(lab.home, PASSWORD), []);
  });
});
