import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { cleanupSshd, startSshd, type SshdHost } from '../../../lab/sshd.js';
import { startEc2Proxy, type Ec2Proxy } from '../../../lab/ec2Proxy.js';
import { cloudInitConsole } from '../../../lab/cloudInitConsole.js';
import { runProcess, runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';

// `tagssh ssh NAME` after the Name tag moved to another instance (CreateTags in moto): the new
// instance's console output lists its real host key, yet the CLI asks on a terminal and refuses
// without one, unless --accept-new names that exact fingerprint (a plain --accept-new is not enough).
// OpenSSH has no notion of it: `ssh NAME` follows DNS/HostName and knows hosts by address.

const root = join(import.meta.dirname, '../../../..');
let lab: CliLab;
let spare: SshdHost;
let front: Ec2Proxy;
let oldId: string;
let newId: string;

function env(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...lab.moto.env,
    AWS_ENDPOINT_URL_EC2: front.endpoint,
    HOME: lab.home,
    TAGSSH_HOME: join(lab.home, 'tagssh'),
    TERM: 'xterm-256color',
  };
}
const tagssh = (args: string[]): Promise<Run> => runTagssh(args, env());
const onPty = (steps: unknown[], args: string[]): Promise<Run> =>
  runProcess('python3', [join(root, 'test/lab/ptyDriver.py'), '30', '200', JSON.stringify(steps), '--', process.execPath, TAGSSH_BIN, ...args], { env: env() });
const fpOf = (h: SshdHost) => h.hostKeys.find((k) => k.type === 'ed25519')!.fingerprint;
const re = (s: string) => s.replace(/[+/.()?]/g, '\\$&');

before(async () => {
  lab = await startCliLab({ prefix: 'tagssh-cli-moved-', keyName: 'team-key', sshd: { address: '127.0.0.6' } });
  spare = await startSshd({ address: '127.0.0.7', authorizedKeys: [lab.key.publicKey] });
  oldId = (await seedInstance(lab.ec2, { name: 'api', eip: lab.host.address, keyName: 'team-key', tags: sshdTags(lab.host) })).id;
  newId = (await seedInstance(lab.ec2, { name: 'spare', eip: spare.address, keyName: 'team-key', tags: sshdTags(spare) })).id;
  // The spare instance's console output vouches for its own sshd's keys, as cloud-init prints them.
  front = await startEc2Proxy(lab.moto.endpoint);
  const vouching = Buffer.from(cloudInitConsole(spare.hostKeys.map((k) => k.publicPath))).toString('base64');
  front.rewrite('GetConsoleOutput', (xml, params) =>
    params.get('InstanceId') === newId ? xml.replace(/<output>[^<]*<\/output>|<output\/>/, `<output>${vouching}</output>`) : xml,
  );
});

after(async () => {
  await front?.close();
  await spare?.stop();
  if (spare) cleanupSshd(spare);
  await lab?.stop();
});

describe('tagssh ssh to a Name that moved to another instance', () => {
  it('a console-vouched first contact is trusted silently while the Name is new (as before)', async () => {
    const r = await tagssh(['ssh', 'spare', '--', 'echo', 'vouched']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'vouched\n');
    assert.equal((await tagssh(['forget-host-key', newId])).code, 0);
    assert.equal((await tagssh(['ssh', 'api', '--accept-new', '--', 'true'])).code, 0);
  });

  it('after the Name moves, refuses without a terminal, naming both instances, even with a plain --accept-new', async () => {
    await lab.ec2.send(new CreateTagsCommand({ Resources: [oldId], Tags: [{ Key: 'Name', Value: 'api-old' }] }));
    await lab.ec2.send(new CreateTagsCommand({ Resources: [newId], Tags: [{ Key: 'Name', Value: 'api' }] }));
    for (const extra of [[], ['--accept-new']]) {
      const r = await tagssh(['ssh', 'api', ...extra, '--', 'echo', 'reached']);
      assert.equal(r.code, 20, r.stderr);
      assert.equal(r.stdout, '', 'nothing ran');
      assert.match(
        r.stderr,
        new RegExp(
          `The Name api now belongs to another instance: trusted until now for ${oldId} \\(launched \\d{4}-\\d\\d-\\d\\dT[^)]+\\), it now names ${newId} \\(launched \\d{4}-`,
        ),
      );
      assert.match(r.stderr, /its own console output lists this key, but that instance vouches for itself/);
      assert.match(r.stderr, new RegExp(`→ If the Name was moved on purpose, confirm this exact key with --accept-new=${re(fpOf(spare))}`));
    }
    assert.doesNotMatch(readFileSync(join(lab.home, 'tagssh', 'config', 'known_hosts'), 'utf8'), new RegExp(`^${newId} `, 'm'));
  });

  it('--accept-new with another fingerprint is refused; with this exact one it connects', async () => {
    const wrong = await tagssh(['ssh', 'api', `--accept-new=${fpOf(lab.host)}`, '--', 'true']);
    assert.equal(wrong.code, 20, wrong.stderr);
    const right = await tagssh(['ssh', 'api', `--accept-new=${fpOf(spare)}`, '--', 'echo', 'confirmed']);
    assert.equal(right.code, 0, right.stderr);
    assert.equal(right.stdout, 'confirmed\n');
    assert.equal((await tagssh(['forget-host-key', newId])).code, 0);
  });

  it('on a terminal, asks with both ids and launch times: "no" aborts, "yes" connects and is remembered', async () => {
    const declined = await onPty(
      [
        ['wait', 'Type yes'],
        ['send', 'no\r'],
      ],
      ['ssh', 'api', '--', 'echo', 'reached'],
    );
    assert.match(
      declined.stdout,
      new RegExp(
        `Trust ${newId} \\(launched \\d{4}-[^)]+\\) as api instead of ${oldId} \\(launched \\d{4}-[^)]+\\), with ssh-ed25519 key ${re(fpOf(spare))}\\?`,
      ),
    );
    assert.doesNotMatch(declined.stdout, /^reached/m);
    assert.match(declined.stdout, /EXIT:20\n$/);
    const accepted = await onPty(
      [
        ['wait', 'Type yes'],
        ['send', 'yes\r'],
      ],
      ['ssh', 'api', '--', 'echo', 'reached'],
    );
    assert.match(accepted.stdout, /^reached\r?$/m);
    assert.match(accepted.stdout, /EXIT:0\n$/);
    assert.equal((await tagssh(['ssh', 'api', '--', 'true'])).code, 0, 'trusted from now on');
  });
});
