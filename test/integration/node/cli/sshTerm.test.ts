import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Moto } from '../../../lab/moto.js';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { type SshdHost } from '../../../lab/sshd.js';
import { runProcess, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// The terminal type `tagssh ssh` asks the remote PTY for, as the README states it: the local TERM,
// as OpenSSH sends it, and xterm-256color where TERM is unset or empty. Checked on a real PTY
// against a real sshd by asking the remote shell for $TERM.

const root = join(import.meta.dirname, '../../../..');
let lab: CliLab;
let moto: Moto;
let host: SshdHost;
let home: string;

before(async () => {
  lab = await startCliLab({
    prefix: 'tagssh-cli-term-',
    keyName: 'term-key',
    sshd: { address: '127.0.0.7' },
  });
  ({ home, moto, host } = lab);
  const ec2 = lab.ec2;
  await seedInstance(ec2, {
    name: 'term',
    eip: host.address,
    keyName: 'term-key',
    imageId: 'ami-1e749f67',
    tags: sshdTags(host),
  });
});

after(async () => {
  await lab?.stop();
});

/** `tagssh ssh term` on a real PTY with the given local TERM (undefined: not set at all). */
function remoteTerm(term: string | undefined): Promise<Run> {
  const steps = [['send', 'echo "T=[$TERM]"; exit 0\r']];
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh') };
  if (term !== undefined) env.TERM = term;
  return runProcess(
    'python3',
    [join(root, 'test/lab/ptyDriver.py'), '24', '80', JSON.stringify(steps), '--', process.execPath, TAGSSH_BIN, 'ssh', 'term', '--accept-new'],
    { env },
  );
}

describe('tagssh ssh: the remote terminal type', () => {
  it('is the local TERM, as OpenSSH sends it', async () => {
    const r = await remoteTerm('screen-256color');
    assert.match(r.stdout, /^T=\[screen-256color\]\r?$/m, r.stdout);
    assert.match(r.stdout, /EXIT:0\n$/);
  });

  it('is xterm-256color where TERM is not set', async () => {
    const r = await remoteTerm(undefined);
    assert.match(r.stdout, /^T=\[xterm-256color\]\r?$/m, r.stdout);
  });

  it('is xterm-256color where TERM is empty', async () => {
    const r = await remoteTerm('');
    assert.match(r.stdout, /^T=\[xterm-256color\]\r?$/m, r.stdout);
  });
});
