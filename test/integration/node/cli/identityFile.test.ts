import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { freePort } from '../../../lab/ports.js';
import { runTagssh, type Run } from '../../../lab/run.js';
import { jsonSettingsStore } from '../../../../src/node/store/settings.js';
import { defaultSettings } from '../../../../src/common/model/settings.js';

// --identity and the settings' key file accept only a regular file of bounded size: /dev/zero, a
// directory or a FIFO given as the key is refused at once with a clear error (before, /dev/zero
// was read for 2 GB and a FIFO hung the connect).

let moto: Moto;
let home: string;
let fifo: string;

function tagssh(...args: string[]): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH ?? '', HOME: home, ...moto.env, TAGSSH_HOME: join(home, 'tagssh'), SSH_AUTH_SOCK: '' });
}

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-identity-'));
  fifo = join(home, 'key.fifo');
  execFileSync('mkfifo', [fifo]);
  // Nothing listens there: every case must fail before connecting.
  await seedInstance(moto.sdk('us-east-1'), { name: 'web', eip: '127.0.0.6', tags: { 'tagssh:port': String(await freePort('127.0.0.6')) } });
});

after(async () => {
  await moto?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('key files that are not key files', () => {
  it('tagssh ssh --identity: a device, a directory, a pipe', async () => {
    for (const [path, kind] of [
      ['/dev/zero', 'a device'],
      [home, 'a directory'],
      [fifo, 'a pipe'],
    ] as const) {
      const started = Date.now();
      const r = await tagssh('ssh', 'web', '--region', 'us-east-1', '--identity', path, '--', 'true');
      assert.equal(r.code, 2, r.stderr);
      assert.ok(r.stderr.startsWith(`tagssh: Key file ${path} is ${kind}, not a private key file.\n  → Check the path given with --identity`), r.stderr);
      assert.ok(Date.now() - started < 15_000, 'refused at once');
    }
  });

  it("the settings' key file is checked the same way", async () => {
    jsonSettingsStore(join(home, 'tagssh', 'config', 'settings.json')).set({ ...defaultSettings(), identityFile: '/dev/zero' });
    const r = await tagssh('ssh', 'web', '--region', 'us-east-1', '--', 'true');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Key file \/dev\/zero is a device, not a private key file/);
    rmSync(join(home, 'tagssh', 'config', 'settings.json'));
  });

  it('tagssh export ssh-config --identity refuses a device, in the words of the CLI', async () => {
    const r = await tagssh('export', 'ssh-config', 'web', '--region', 'us-east-1', '--file', join(home, 'cfg'), '--identity', '/dev/zero');
    assert.equal(r.code, 40, r.stderr);
    assert.ok(r.stderr.startsWith('tagssh: --identity /dev/zero is a device, not a private key file.\n  → Pass --identity with the path'), r.stderr);
  });
});
