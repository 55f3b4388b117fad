import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { sshConfigBlock, replaceManagedBlock } from '../../../../src/common/export/sshConfig.js';

// Real OpenSSH reads configs exported for random, hostile Names: `ssh -G` must see each alias with
// the expected HostName/User/Port/HostKeyAlias, and the ProxyCommand, expanded as ssh does and run
// by /bin/sh, must hand `tagssh proxy` exactly the Name (or id) — nothing interpreted on the way.

const NASTY = [
  `'`,
  `"`,
  '$(id)',
  '`id`',
  '%',
  '%p',
  '%%',
  '&',
  '^',
  '|',
  '<',
  '>',
  '\n',
  '\t',
  ';',
  '#',
  '\\',
  ' ',
  '*',
  '?',
  '!',
  'é',
  '漢',
  '😀',
  '-o',
  '=',
  ',',
];
const nameArb = fc.oneof(
  fc.array(fc.constantFrom(...NASTY), { minLength: 1, maxLength: 10 }).map((a) => a.join('')),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.,:@+=-]{0,20}$/),
);

describe('exported ssh config under real ssh -G and /bin/sh', () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  let selfPath: string;
  let knownHosts: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'tagssh-sshg-'));
    // Exported by absolute path, from a directory whose name needs every kind of quoting.
    const bin = join(work, `bin "dir" it's %p $(id) #1`);
    mkdirSync(bin);
    // A stand-in for TagSSH that prints the argv it received, NUL-separated. Not on PATH.
    selfPath = join(bin, 'tagssh');
    writeFileSync(selfPath, '#!/bin/sh\nprintf "%s\\0" "$@"\n');
    chmodSync(selfPath, 0o755);
    knownHosts = join(work, `conf "x" %d it's`, 'known_hosts');
    env = { ...process.env };
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('60 random Names: ssh -G values and the ProxyCommand argv are exact', () => {
    const names = fc.sample(nameArb, { numRuns: 60, seed: 7 });
    const hosts = names.map((name, i) => ({
      instanceId: `i-${(0x1000000000 + i).toString(16).padStart(17, '0')}`,
      region: 'eu-central-1',
      name,
      user: 'ec2-user',
      port: 2000 + i,
    }));
    const { text, mapping } = sshConfigBlock(hosts, { profile: 'team-a', tagsshCommand: [selfPath], knownHostsFile: knownHosts });
    const cfg = join(work, 'config');
    writeFileSync(cfg, replaceManagedBlock('Host *\n  User fallback\n', text));
    const counts = new Map<string, number>();
    for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
    hosts.forEach((h, i) => {
      const alias = mapping[i]!.alias;
      const g = spawnSync('ssh', ['-G', '-F', cfg, alias], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      assert.equal(g.status, 0, g.stderr);
      const get = (k: string) => new RegExp(`^${k} (.*)$`, 'm').exec(g.stdout)?.[1];
      assert.equal(get('hostname'), h.instanceId);
      assert.equal(get('user'), 'ec2-user');
      assert.equal(get('port'), String(h.port));
      assert.equal(get('hostkeyalias'), h.instanceId);
      assert.equal(get('userknownhostsfile'), knownHosts);
      assert.equal(get('stricthostkeychecking'), 'true');
      assert.equal(get('checkhostip'), 'no');
      // Expand %-tokens as ssh does for ProxyCommand (%p, %%), then let /bin/sh run it.
      const proxy = get('proxycommand')!.replace(/%(.)/g, (_, c: string) =>
        c === 'p' ? String(h.port) : c === '%' ? '%' : assert.fail(`unexpected token %${c}`),
      );
      const run = spawnSync('/bin/sh', ['-c', proxy], { env, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const argv = run.stdout.split('\0').slice(0, -1);
      assert.equal(argv[0], 'proxy');
      const target = argv[1] === '--name-b64' ? Buffer.from(argv[2]!, 'base64url').toString('utf8') : argv[1];
      const rest = argv.slice(argv[1] === '--name-b64' ? 3 : 2);
      assert.deepEqual(rest, ['--region', 'eu-central-1', '--profile', 'team-a', '--port', String(h.port)]);
      assert.equal(target, counts.get(h.name)! > 1 ? h.instanceId : h.name, `alias ${alias}`);
    });
  });
});
