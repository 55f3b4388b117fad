import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import type { Moto } from '../../../lab/moto.js';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags, type Seeded } from '../../../lab/seed.js';
import { type SshdHost } from '../../../lab/sshd.js';
import { freePort } from '../../../lab/ports.js';
import { runProcess, runTagssh, type Run } from '../../../lab/run.js';
import { startTunnelProcess, waitFor } from '../../../lab/tunnelProcess.js';
import { httpGet } from '../../../lab/httpGet.js';
import { jsonTunnelStore, savedTunnelsPath } from '../../../../src/node/tunnels/saved.js';
import type { SavedTunnel } from '../../../../src/common/tunnels/contract.js';

// `tagssh tunnel NAME` with the app's saved tunnels: tunnels.json written by the app's own store,
// an instance "web" in moto (a real sshd behind its Elastic IP) tagged env=staging, two HTTP
// servers behind its own saved -L and its tag's saved -L. A tunnel of another tag and of another
// instance must not run; retagging web in EC2 changes which run at once. --saved, --list, the
// none-saved message, flags beside saved tunnels and a busy saved port, each as a person runs them.

let lab: CliLab;
let moto: Moto;
let host: SshdHost;
let home: string;
let web: Seeded;
let other: Seeded;
let bare: Seeded;
const servers: http.Server[] = [];
let ownPort: number;
let tagPort: number;
const OWN_BODY = `own saved tunnel ${randomBytes(6).toString('hex')}\n`;
const TAG_BODY = `tag saved tunnel ${randomBytes(6).toString('hex')}\n`;
const EVIL = 'a\u001b]0;pwned\u0007b';

let own: SavedTunnel;
let staging: SavedTunnel;
let production: SavedTunnel;
let othersOwn: SavedTunnel;
let evilTag: SavedTunnel;
let all: SavedTunnel[];

function env(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh') };
}
function tagssh(args: string[]): Promise<Run> {
  return runTagssh(args, env());
}
/** Replaces the saved tunnels through the store the app writes with. */
function save(list: SavedTunnel[]): void {
  jsonTunnelStore(savedTunnelsPath(env())).update(() => list);
}

interface Started {
  child: ChildProcess;
  stderr: () => string;
  /** The forward lines between "Tunnels through …:" and "Press Ctrl-C …". */
  forwards: string[];
  head: string;
  close(): Promise<number | null>;
}

/** Starts `tagssh tunnel …` and waits for its list of open tunnels. */
async function startTunnel(args: string[]): Promise<Started> {
  const { child, stderr, lines } = await startTunnelProcess(args, env());
  const end = lines.indexOf('Press Ctrl-C to close them.');
  return {
    child,
    stderr,
    head: lines[0]!,
    forwards: lines.slice(1, end),
    close: async () => {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGINT');
      return exited;
    },
  };
}

/** The local address of a -L line and the port it forwards to. */
function localForward(line: string | undefined): { address: string; to: number } {
  const m = /^ {2}(127\.0\.0\.1:\d+) {2}→ {2}127\.0\.0\.1:(\d+) as seen from web {2}\(-L [^)]+\)$/.exec(line ?? '');
  assert.ok(m, `a -L line: ${line}`);
  return { address: m[1]!, to: Number(m[2]) };
}

async function setEnvTag(id: string, value: string): Promise<void> {
  await moto.sdk().send(new CreateTagsCommand({ Resources: [id], Tags: [{ Key: 'env', Value: value }] }));
}

before(async () => {
  lab = await startCliLab({
    prefix: 'tagssh-saved-tunnels-',
    keyName: 'team-key',
    sshd: { address: '127.0.0.48' },
  });
  ({ home, moto, host } = lab);
  const ec2 = lab.ec2;
  web = await seedInstance(ec2, { name: 'web', eip: host.address, keyName: 'team-key', imageId: 'ami-1e749f67', tags: { env: 'staging', ...sshdTags(host) } });
  other = await seedInstance(ec2, { name: 'other', eip: '127.0.0.49', keyName: 'team-key', imageId: 'ami-1e749f67' });
  bare = await seedInstance(ec2, { name: 'bare', eip: '127.0.0.50', keyName: 'team-key', imageId: 'ami-1e749f67', tags: { env: 'test' } });
  [ownPort, tagPort] = [await freePort(), await freePort()];
  for (const [port, body] of [
    [ownPort, OWN_BODY],
    [tagPort, TAG_BODY],
  ] as const) {
    const s = http.createServer((_req, res) => res.end(body));
    servers.push(s);
    await new Promise<void>((r) => s.listen(port, '127.0.0.1', r));
  }
  own = { id: randomUUID(), instanceId: web.id, region: 'us-east-1', label: 'web', kind: 'local', port: 0, host: '127.0.0.1', hostPort: ownPort };
  staging = { id: randomUUID(), tag: { key: 'env', value: 'staging' }, label: 'env=staging', kind: 'local', port: 0, host: '127.0.0.1', hostPort: tagPort };
  production = { id: randomUUID(), tag: { key: 'env', value: 'production' }, label: 'env=production', kind: 'dynamic', port: 0 };
  othersOwn = { id: randomUUID(), instanceId: other.id, region: 'us-east-1', label: 'other', kind: 'remote', port: 9000, host: 'localhost', hostPort: 3000 };
  evilTag = { id: randomUUID(), tag: { key: 'team', value: EVIL }, label: `team=${EVIL}`, kind: 'local', port: 0, host: '127.0.0.1', hostPort: 80 };
  all = [own, staging, production, othersOwn, evilTag];
  // The host key is trusted once, from a terminal, as a person would.
  const trust = await tagssh(['ssh', 'web', '--accept-new', '--', 'true']);
  assert.equal(trust.code, 0, trust.stderr);
});

after(async () => {
  for (const s of servers) s.close();
  await lab?.stop();
});

describe('tagssh tunnel NAME with saved tunnels', () => {
  it('without -L/-D/-R starts its own and its tag’s saved tunnels (not another tag’s or instance’s), reconnects, closes on Ctrl-C', async () => {
    save(all);
    const t = await startTunnel(['web', '--keepalive', '1']);
    try {
      assert.equal(t.head, 'Tunnels through web:');
      assert.equal(t.forwards.length, 2, t.forwards.join('\n'));
      const [a, b] = [localForward(t.forwards[0]), localForward(t.forwards[1])];
      assert.deepEqual([a.to, b.to], [ownPort, tagPort], 'file order: its own, then env=staging');
      assert.equal(await httpGet(a.address), OWN_BODY);
      assert.equal(await httpGet(b.address), TAG_BODY);

      for (const pid of execFileSync('pgrep', ['-P', String(host.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n'))
        process.kill(Number(pid), 'SIGKILL');
      await waitFor(
        () => /Link to web rebuilt \(rebuild 1\)/.test(t.stderr()),
        () => t.stderr(),
      );
      assert.equal(await httpGet(a.address), OWN_BODY, 'same address after the reconnect');
      assert.equal(await httpGet(b.address), TAG_BODY);
      assert.equal(await t.close(), 0);
      assert.match(t.stderr(), /Tunnels closed \(\d+ bytes sent, \d+ bytes received\)\./);
      await assert.rejects(httpGet(a.address), /ECONNREFUSED/);
    } finally {
      t.child.kill('SIGKILL');
    }
  });

  it('takes the tags EC2 reports now: retagged env=production, web runs that tag’s SOCKS tunnel instead', async () => {
    save(all);
    await setEnvTag(web.id, 'production');
    try {
      const t = await startTunnel(['web']);
      try {
        assert.equal(t.forwards.length, 2, t.forwards.join('\n'));
        assert.equal(localForward(t.forwards[0]).to, ownPort);
        const socks = /^ {2}(127\.0\.0\.1:\d+) {2}SOCKS5 proxy, destinations reached from web {2}\(-D 0\)$/.exec(t.forwards[1]!);
        assert.ok(socks, t.forwards[1]);
        const curl = await runProcess('curl', ['-sS', '--max-time', '20', '--socks5-hostname', socks[1]!, `http://localhost:${tagPort}/`], {
          env: { PATH: process.env.PATH },
        });
        assert.equal(curl.code, 0, curl.stderr);
        assert.equal(curl.stdout, TAG_BODY);
        assert.equal(await t.close(), 0);
      } finally {
        t.child.kill('SIGKILL');
      }
    } finally {
      await setEnvTag(web.id, 'staging');
    }
  });

  it('--saved starts only the ones named: by id, by the start of an id, by label; repeatable', async () => {
    save(all);
    const cases: Array<[string[], number[]]> = [
      [['--saved', own.id], [ownPort]],
      [['--saved', staging.id.slice(0, 8)], [tagPort]],
      [['--saved', 'env=staging'], [tagPort]],
      [
        ['--saved', 'env=staging', '--saved', 'web', '--saved', own.id],
        [ownPort, tagPort],
      ],
    ];
    for (const [args, ports] of cases) {
      const t = await startTunnel(['web', ...args]);
      try {
        const forwards = t.forwards.map(localForward);
        assert.deepEqual(
          forwards.map((f) => f.to),
          ports,
          args.join(' '),
        );
        for (const f of forwards) assert.equal(await httpGet(f.address), f.to === ownPort ? OWN_BODY : TAG_BODY);
        assert.equal(await t.close(), 0);
      } finally {
        t.child.kill('SIGKILL');
      }
    }
  });

  it('--saved naming nothing saved is an error naming what is saved (exit 3); one saved for another tag says so (exit 2)', async () => {
    save(all);
    const unknown = await tagssh(['tunnel', 'web', '--saved', 'nope']);
    assert.equal(unknown.code, 3, unknown.stderr);
    const first = unknown.stderr.split('\n')[0]!;
    assert.match(first, /^tagssh: --saved nope: no saved tunnel has that id or label; saved: /);
    for (const t of all) assert.ok(first.includes(t.id), `names ${t.id}: ${first}`);
    assert.ok(first.includes(`${own.id} (web (${web.id} us-east-1), -L 0:127.0.0.1:${ownPort})`), first);
    assert.ok(first.includes(`${production.id} (tag env=production, -D 0)`), first);
    assert.match(unknown.stderr, /→ Pass an id or a label from `tagssh tunnel --list`\./);
    assert.equal(unknown.stdout, '');

    const elsewhere = await tagssh(['tunnel', 'web', '--saved', 'env=production']);
    assert.equal(elsewhere.code, 2, elsewhere.stderr);
    assert.equal(elsewhere.stderr.split('\n')[0], `tagssh: --saved env=production is not for web (${web.id}): ${production.id} (tag env=production, -D 0).`);
    assert.match(elsewhere.stderr, new RegExp(`→ Saved for it: ${own.id} .*; ${staging.id} \\(tag env=staging, -L 0:127\\.0\\.0\\.1:${tagPort}\\)\\.`));
    assert.equal(elsewhere.stdout, '');
  });

  it('--list shows every saved tunnel with its id, binding and forward, untrusted text escaped; --list NAME those that apply', async () => {
    save(all);
    const r = await tagssh(['tunnel', '--list']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(![...r.stdout].some((c) => c !== '\n' && (c < ' ' || c === '\u007f')), 'no control character reaches the terminal');
    const rows = r.stdout.trimEnd().split('\n');
    assert.match(rows[0]!, /^ID {2,}FOR {2,}FORWARD$/);
    assert.equal(rows.length, 1 + all.length);
    const cells = rows.slice(1).map((row) => row.split(/ {2,}/));
    assert.deepEqual(cells, [
      [own.id, `web (${web.id} us-east-1)`, `-L 0:127.0.0.1:${ownPort}`],
      [staging.id, 'tag env=staging', `-L 0:127.0.0.1:${tagPort}`],
      [production.id, 'tag env=production', '-D 0'],
      [othersOwn.id, `other (${other.id} us-east-1)`, '-R 9000:localhost:3000'],
      [evilTag.id, 'tag "team=a\\u001b]0;pwned\\u0007b"', '-L 0:127.0.0.1:80'],
    ]);

    const forWeb = await tagssh(['tunnel', '--list', 'web']);
    assert.equal(forWeb.code, 0, forWeb.stderr);
    const lines = forWeb.stdout.trimEnd().split('\n');
    assert.equal(lines[0], `Saved tunnels for web (${web.id}):`);
    assert.deepEqual(
      lines.slice(2).map((l) => l.split(/ {2,}/)[0]),
      [own.id, staging.id],
    );

    const none = await tagssh(['tunnel', '--list', 'bare']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, `No saved tunnel applies to bare (${bare.id}) (5 saved for other instances or tags).\n`);

    const missing = await tagssh(['tunnel', '--list', 'nosuch']);
    assert.equal(missing.code, 3, missing.stderr);
    assert.match(missing.stderr, /^tagssh: No instance named "nosuch"/);

    const mixed = await tagssh(['tunnel', '--list', 'web', '-L', '0:127.0.0.1:80']);
    assert.equal(mixed.code, 2, mixed.stderr);
    assert.equal(mixed.stderr, 'tagssh: --list only lists the saved tunnels: leave out -L, -D, -R and --saved, or leave out --list to start them.\n');

    // --json: the saved tunnels as stored, untrusted text made terminal-safe; an error as {"error"} too.
    const json = await tagssh(['tunnel', '--list', '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.ok(!json.stdout.includes('\u001b'), 'no ESC reaches the terminal raw');
    assert.deepEqual(JSON.parse(json.stdout), all);
    const webJson = await tagssh(['tunnel', '--list', 'web', '--json']);
    assert.deepEqual(
      (JSON.parse(webJson.stdout) as { id: string }[]).map((t) => t.id),
      [own.id, staging.id],
    );
    const bareJson = await tagssh(['tunnel', '--list', 'bare', '--json']);
    assert.equal(bareJson.stdout, '[]\n');
    const missingJson = await tagssh(['tunnel', '--list', 'nosuch', '--json']);
    assert.equal(missingJson.code, 3, missingJson.stderr);
    assert.equal((JSON.parse(missingJson.stdout) as { error: { code: string } }).error.code, 'NOT_FOUND');
    const jsonAlone = await tagssh(['tunnel', 'web', '--json']);
    assert.equal(jsonAlone.code, 2, jsonAlone.stderr);
    assert.equal(jsonAlone.stderr, 'tagssh: --json prints the saved tunnels: use it with --list (tagssh tunnel --list [NAME] --json).\n');

    save([]);
    const empty = await tagssh(['tunnel', '--list']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, "No tunnels are saved. Save them in the app's Tunnels tab.\n");
  });

  it('with nothing saved, or nothing that applies, one line says so and how to add one (exit 2, nothing opened)', async () => {
    save([]);
    const nothing = await tagssh(['tunnel', 'web']);
    assert.equal(nothing.code, 2, nothing.stderr);
    assert.equal(nothing.stderr, "tagssh: No tunnels are saved: save one in the app's Tunnels tab, or give the forwards as -L, -D or -R.\n");
    assert.equal(nothing.stdout, '');
    const named = await tagssh(['tunnel', 'web', '--saved', 'web']);
    assert.equal(named.code, 3, named.stderr);
    assert.match(named.stderr, /^tagssh: --saved web: no tunnels are saved\.$/m);

    save(all);
    const notHere = await tagssh(['tunnel', 'bare']);
    assert.equal(notHere.code, 2, notHere.stderr);
    assert.equal(
      notHere.stderr,
      `tagssh: No saved tunnel applies to bare (${bare.id}) (the 5 saved are for other instances or tags; \`tagssh tunnel --list\` shows them): save one in the app's Tunnels tab, or give the forwards as -L, -D or -R.\n`,
    );
    assert.equal(notHere.stdout, '');

    const noName = await tagssh(['tunnel']);
    assert.equal(noName.code, 2, noName.stderr);
    assert.match(noName.stderr, /^tagssh: Name the instance: tagssh tunnel NAME .*, or list the saved tunnels with tagssh tunnel --list\.$/m);
  });

  it('flags alone run only the flags; flags with --saved run both', async () => {
    save(all);
    const alone = await startTunnel(['web', '-L', `0:127.0.0.1:${tagPort}`]);
    try {
      assert.deepEqual(
        alone.forwards.map((l) => localForward(l).to),
        [tagPort],
      );
      assert.equal(await alone.close(), 0);
    } finally {
      alone.child.kill('SIGKILL');
    }
    const both = await startTunnel(['web', '-L', `0:127.0.0.1:${tagPort}`, '--saved', own.id]);
    try {
      const [flag, saved] = both.forwards.map(localForward);
      assert.equal(both.forwards.length, 2, both.forwards.join('\n'));
      assert.equal(flag!.to, tagPort);
      assert.equal(saved!.to, ownPort);
      assert.equal(await httpGet(flag!.address), TAG_BODY);
      assert.equal(await httpGet(saved!.address), OWN_BODY);
      assert.equal(await both.close(), 0);
    } finally {
      both.child.kill('SIGKILL');
    }
  });

  it('a saved tunnel the spec rules refuse (a hand-edited host) is named with what is wrong, before connecting', async () => {
    const edited: SavedTunnel = { ...own, id: randomUUID(), host: 'bad host' };
    save([edited]);
    const r = await tagssh(['tunnel', 'web']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      r.stderr,
      `tagssh: Saved tunnel ${edited.id} (web (${web.id} us-east-1), -L 0:bad host:${ownPort}): "bad host" is not a host name or address.\n  → Change it in the app's Tunnels tab.\n`,
    );
    assert.equal(r.stdout, '');
  });

  it('--help shows the saved forms', async () => {
    const r = await tagssh(['tunnel', '--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: tagssh tunnel \[options\] \[name\]$/m);
    assert.match(r.stdout, /^ {2}--saved <id\|label> +start only this saved tunnel/m);
    assert.match(r.stdout, /^ {2}--list +list the saved tunnels/m);
    assert.match(r.stdout, /^Without -L\/-D\/-R, the tunnels saved in the app's Tunnels tab that apply to NAME run/m);
    assert.match(r.stdout, /^ {2}tagssh tunnel --list \[web\] /m);
    assert.match(r.stdout, /^ {2}--json +with --list: print the saved tunnels as a JSON array/m);
  });

  it('a saved fixed local port in use is the same error as the flag form', async () => {
    const busy = net.createServer();
    const port = await freePort();
    await new Promise<void>((r) => busy.listen(port, '127.0.0.1', r));
    try {
      const fixed: SavedTunnel = { ...own, id: randomUUID(), bind: '127.0.0.1', port, hostPort: 80 };
      save([...all, fixed]);
      const bySaved = await tagssh(['tunnel', 'web', '--saved', fixed.id]);
      const byFlag = await tagssh(['tunnel', 'web', '-L', `127.0.0.1:${port}:127.0.0.1:80`]);
      assert.equal(bySaved.code, 2, bySaved.stderr);
      assert.equal(bySaved.stderr.split('\n')[0], `tagssh: -L 127.0.0.1:${port}:127.0.0.1:80: Local port ${port} on 127.0.0.1 is already in use.`);
      assert.equal(bySaved.stderr, byFlag.stderr);
      assert.equal(bySaved.code, byFlag.code);
      assert.equal(bySaved.stdout, '');
    } finally {
      busy.close();
    }
  });
});
