import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import net from 'node:net';
import ssh2 from 'ssh2';
import { useSshd } from '../../../lab/useSshd.js';
import { makeKey } from '../../../lab/sshd.js';
import { freePort } from '../../../lab/ports.js';
import { SessionManager } from '../../../../src/node/ssh/sessionManager.js';
import { connect } from '../../../../src/node/ssh/connection.js';

// The start of a terminal, as a person sees it: the server's login banner first (once per
// connection, escaped: it is the server's text), then the shell's very first output — even when
// that output reaches us in the same read as the server's reply to the shell request.

// A banner with an escape sequence that would retitle the window, a C1 CSI, and a tab.
const BANNER = 'AUTHORIZED USE ONLY\n\x1b]0;pwned\x07\tmonitored\u009b31m\n';
const lab = useSshd({ prefix: 'tagssh-banner-', address: '127.0.0.39', extraConfig: [] });

function collect(sm: SessionManager) {
  const out = new Map<string, string>();
  sm.on('data', (id: string, c: Buffer) => out.set(id, (out.get(id) ?? '') + c.toString()));
  const waitFor = async (id: string, re: RegExp) => {
    for (let i = 0; i < 400 && !re.test(out.get(id) ?? ''); i++) await new Promise((r) => setTimeout(r, 25));
    assert.match(out.get(id) ?? '', re);
  };
  return { out, waitFor };
}

describe('the start of a terminal session', () => {
  before(async () => {
    await lab.ready;
    const banner = join(lab.dir, 'banner.txt');
    writeFileSync(banner, BANNER);
    // The lab's sshd reads its config at start: add the Banner and restart it on the same port.
    const config = join(lab.host.dir, 'sshd_config');
    writeFileSync(config, `${readFileSync(config, 'utf8')}Banner ${banner}\n`);
    await lab.host.stop();
    await lab.host.start();
  });

  it('shows the login banner first, escaped, line by line, and only on the connection’s first terminal', async (t) => {
    const sm = new SessionManager({ connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null } });
    const { out, waitFor } = collect(sm);
    const a = await sm.open(lab.target(), { cols: 80, rows: 24 });
    t.after(() => sm.list().forEach((s) => sm.close(s.id)));
    sm.write(a, 'echo first-$((40+2))\n');
    await waitFor(a, /first-42/);
    const shown = out.get(a)!;
    assert.ok(
      shown.startsWith('AUTHORIZED USE ONLY\r\n\\x1b]0;pwned\\x07        monitored\\x9b31m\r\n'),
      `the terminal begins with the escaped banner: ${JSON.stringify(shown.slice(0, 120))}`,
    );
    assert.ok(!shown.includes('\x1b]0;'), 'no raw escape sequence from the banner');
    const b = await sm.open(lab.target(), { cols: 80, rows: 24 });
    sm.write(b, 'echo second-$((40+3))\n');
    await waitFor(b, /second-43/);
    assert.ok(!out.get(b)!.includes('AUTHORIZED'), 'a second tab on the same connection does not repeat it');
  });

  it('exposes the banner on the connection as the server sent it', async () => {
    const conn = await connect(lab.target(), { knownHosts: lab.store, consoleOutput: null, agent: null });
    try {
      assert.equal(conn.banner, BANNER);
    } finally {
      conn.close();
    }
  });
});

describe('a shell whose first output arrives with the reply to the shell request', () => {
  let server: ssh2.Server;
  let port: number;
  let hostKeyDir: string;
  const GREETING = 'hello from the first packet\r\n';

  before(async () => {
    await lab.ready;
    hostKeyDir = join(lab.dir, 'early');
    const hostKey = makeKey(hostKeyDir, 'ed25519', { name: 'host' });
    port = await freePort('127.0.0.39');
    // A server that writes in the same tick as it accepts the shell: the reply and the data leave
    // in one write, so the client reads them together.
    server = new ssh2.Server({ hostKeys: [readFileSync(hostKey.privatePath)] }, (client) => {
      client.on('authentication', (ctx) => (ctx.method === 'publickey' ? ctx.accept() : ctx.reject(['publickey'])));
      client.on('ready', () =>
        client.on('session', (accept) => {
          const session = accept();
          session.on('pty', (ok) => ok?.());
          session.on('shell', (ok) => {
            const stream = ok();
            stream.write(GREETING);
            stream.exit(3);
            stream.end();
          });
        }),
      );
      client.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.39', () => r()));
  });

  after(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  /**
   * A relay that holds what the server sends and passes it on every 40 ms in one write, as a slow
   * link would deliver it: the reply to the shell request and the shell's first output arrive in
   * one read.
   */
  async function coalescingRelay(): Promise<{ port: number; close(): void }> {
    const relay = net.createServer((inbound) => {
      const outbound = net.connect(port, '127.0.0.39');
      let held: Buffer[] = [];
      const flush = setInterval(() => {
        if (held.length) inbound.write(Buffer.concat(held));
        held = [];
      }, 40);
      outbound.on('data', (c: Buffer) => held.push(c));
      inbound.pipe(outbound);
      const end = () => {
        clearInterval(flush);
        inbound.destroy();
        outbound.destroy();
      };
      inbound.on('close', end).on('error', end);
      outbound.on('close', () => setTimeout(end, 100)).on('error', end);
    });
    const relayPort = await freePort('127.0.0.39');
    await new Promise<void>((r) => relay.listen(relayPort, '127.0.0.39', () => r()));
    return { port: relayPort, close: () => relay.close() };
  }

  it('delivers that first output to the terminal', async (t) => {
    const relay = await coalescingRelay();
    t.after(() => relay.close());
    for (let round = 0; round < 3; round++) {
      const sm = new SessionManager({ connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null } });
      const { out } = collect(sm);
      const exits: (number | null)[] = [];
      sm.on('exit', (_id: string, code: number | null) => exits.push(code));
      const closed = new Promise<string>((r) => {
        sm.on('closed', () => r('closed'));
        setTimeout(() => r('still open after 10 s'), 10_000).unref();
      });
      const id = await sm.open(lab.target({ host: '127.0.0.39', port: relay.port, label: 'early' }), { cols: 80, rows: 24 });
      assert.equal(await closed, 'closed', `round ${round}: the session ended`);
      assert.equal(out.get(id), GREETING, `round ${round}: its first output`);
      assert.deepEqual(exits, [3], `round ${round}: its exit status`);
    }
  });
});
