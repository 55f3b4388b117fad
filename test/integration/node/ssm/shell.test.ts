import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import { openSsmShell, type SsmShell } from '../../../../src/node/ssm/shell.js';
import { resetSsmClients } from '../../../../src/node/ssm/api.js';

// The plain SSM shell (Standard_Stream, no SSH): the lab runs /bin/sh on a real pseudo-terminal
// behind its data-channel server; StartSession is served by the lab (AWS_ENDPOINT_URL_SSM).

const ID = 'i-0shell0000000000b1';
const REGION = 'us-east-1';
let lab: SsmLab;
let dir: string;
const saved = { ...process.env };

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-ssm-shell-'));
  lab = await startSsmLab();
  lab.nodes.set(ID, {});
  Object.assign(process.env, lab.env, {
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_CONFIG_FILE: join(dir, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  });
  resetSsmClients();
});

after(async () => {
  resetSsmClients();
  process.env = saved;
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function collector(shell: SsmShell): { text: () => string; waitFor: (re: RegExp) => Promise<void> } {
  let out = '';
  const waiters: Array<() => void> = [];
  shell.onData = (d) => {
    out += d.toString('utf8');
    for (const w of waiters.splice(0)) w();
  };
  return {
    text: () => out,
    async waitFor(re) {
      const deadline = Date.now() + 15_000;
      while (!re.test(out)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${re} in:\n${out}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
    },
  };
}

it('a shell with the terminal size, resize, Ctrl-C passed through, and exit on channel_closed', async () => {
  const shell = await openSsmShell({ instanceId: ID, region: REGION, cols: 100, rows: 30 });
  // The first prompt comes unasked, here before anyone listens: it must not be lost.
  const rec = lab.sessions.at(-1)!;
  for (let i = 0; i < 200 && rec.outputAcked === 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(rec.outputAcked > 0, 'the prompt reached the client');
  const out = collector(shell);
  await out.waitFor(/^lab\$ /);
  const exited = new Promise<Error | undefined>((r) => (shell.onExit = r));
  await shell.write('stty size\n');
  await out.waitFor(/30 100/);
  await shell.resize(120, 40);
  await shell.write('stty size\n');
  await out.waitFor(/40 120/);
  // Ctrl-C reaches the foreground command through the terminal, not the session.
  const started = Date.now();
  await shell.write('sleep 30; echo late-$((6*7))\n');
  await new Promise((r) => setTimeout(r, 300));
  await shell.write('\x03');
  await shell.write('echo after-$((40+2))\n');
  await out.waitFor(/after-42/);
  assert.doesNotMatch(out.text(), /late-42/);
  assert.ok(Date.now() - started < 20_000, 'sleep was interrupted');
  await shell.write('exit\n');
  assert.equal(await exited, undefined, 'a shell that exits closes the session without an error');
  assert.equal(rec.document, 'SSM-SessionManagerRunShell');
  assert.equal(rec.portNumber, undefined);
  assert.deepEqual(rec.sizes, [
    { cols: 100, rows: 30 },
    { cols: 120, rows: 40 },
  ]);
  for (let i = 0; i < 50 && !rec.terminated; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(rec.terminated, true);
});

it('close() from this side ends the session (TerminateSession flag, then the API call)', async () => {
  const shell = await openSsmShell({ instanceId: ID, region: REGION, cols: 80, rows: 24 });
  const rec = lab.sessions.at(-1)!;
  const out = collector(shell);
  await shell.write('echo ready-$((1+1))\n');
  await out.waitFor(/ready-2/);
  shell.close();
  for (let i = 0; i < 50 && !rec.terminated; i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(rec.flags, [2]);
  assert.equal(rec.terminated, true);
});
