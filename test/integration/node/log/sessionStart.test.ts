import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { SessionManager } from '../../../../src/node/ssh/sessionManager.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import { createAppService } from '../../../../src/node/service.js';
import { sessionLogSection } from '../../../../src/node/log/serviceSection.js';
import { defaultSettings, type Settings } from '../../../../src/common/model/settings.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import type { EventName, Payload } from '../../../../src/common/contract.js';
import { stubEngine } from '../../../support/engineStub.js';

// The app's Settings › Session logs "every session", against a real sshd whose login prints a
// first screen (a motd-like greeting from the login shell): the log holds the session from its
// first byte, even when the window asks for the log only after that first screen was painted —
// which is what the app does (it asks once the open has returned to it, one round trip later).

let dir: string;
let home: string;
let host: SshdHost;
let key: KeyPair;
let store: KnownHostsStore;
const saved = process.env.TAGSSH_HOME;
const GREETING = 'Welcome to lab-host (motd line 1)';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-logstart-'));
  home = join(dir, 'tagssh');
  process.env.TAGSSH_HOME = home;
  key = makeKey(join(dir, 'keys'), 'ed25519');
  host = await startSshd({ address: '127.0.0.64', authorizedKeys: [key.publicKey], extraConfig: ['PrintLastLog no'] });
  // The lab's login HOME (see labSessionEnv): a login shell prints the greeting first, as a motd would.
  writeFileSync(join(host.dir, 'home', '.bash_profile'), `printf '%s\\r\\n' '${GREETING}'\nPS1='lab$ '\n`);
  store = new KnownHostsStore(join(dir, 'known_hosts.json'));
});

const clients: Array<{ dispose(): void }> = [];

after(async () => {
  // A test that failed half way leaves its window's sessions open: closing the window ends them.
  for (const c of clients) c.dispose();
  await host?.stop();
  if (host) cleanupSshd(host);
  if (saved === undefined) delete process.env.TAGSSH_HOME;
  else process.env.TAGSSH_HOME = saved;
  rmSync(dir, { recursive: true, force: true });
});

const target = (overrides: Partial<ConnectTarget> = {}): ConnectTarget => ({
  host: host.address,
  port: host.port,
  user: host.user,
  label: 'lab-host',
  identityFile: key.privatePath,
  acceptNewHostKey: true,
  ...overrides,
});

/** The app service over a real SessionManager; `openTarget` is what the next open connects to. */
function setup(always: boolean) {
  const sessions = new SessionManager({ connectOptions: { knownHosts: store, consoleOutput: null, agent: null } });
  let openTarget = target();
  const engine = stubEngine({
    sessions,
    async openSession(req) {
      const t = openTarget;
      const id = await sessions.open(t, { cols: 80, rows: 24, askPassphrase: req.askPassphrase });
      return { sessionId: id, label: t.label, instanceId: null, host: t.host };
    },
  });
  let settings: Settings = { ...defaultSettings(), sessionLog: { ...defaultSettings().sessionLog, always, timestamps: false } };
  const service = createAppService({ engine, settings: { get: () => settings, set: (s) => (settings = s) }, sections: [sessionLogSection()] });
  const painted = new Map<string, string>();
  const closed = new Set<string>();
  const client = service.connect(<E extends EventName>(event: E, payload: Payload<E>) => {
    const p = payload as { sessionId?: string; data?: string };
    if (event === 'session.data' && p.sessionId && p.data !== undefined) {
      const { sessionId, data } = p;
      painted.set(sessionId, (painted.get(sessionId) ?? '') + data);
      // Painted: acknowledged as the app's terminal does (the service holds output back otherwise).
      setImmediate(() => client.handlers['session.ack']({ sessionId, chars: data.length }));
    }
    if (event === 'session.closed' && p.sessionId) closed.add(p.sessionId);
  });
  clients.push(client);
  const until = async (what: string, ok: () => boolean) => {
    for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(ok(), what);
  };
  return {
    service,
    client,
    painted,
    closed,
    until,
    setTarget: (t: ConnectTarget) => (openTarget = t),
    open: async (openId: string, log?: { timestamps?: boolean }) =>
      (await client.handlers['session.open']({ ref: 'lab-host', openId, cols: 80, rows: 24, start: false, ...(log ? { log } : {}) })).sessionId,
  };
}

/** The log's text once `re` is in it: the session's end closes the log a moment after the window hears of it. */
async function logOnce(path: string, re: RegExp): Promise<string> {
  let text = '';
  for (let i = 0; i < 200 && !re.test(text); i++) {
    text = readFileSync(path, 'utf8');
    if (!re.test(text)) await new Promise((r) => setTimeout(r, 25));
  }
  assert.match(text, re);
  return text;
}

const logFiles = () => {
  try {
    return readdirSync(join(home, 'config', 'logs'));
  } catch {
    return [];
  }
};

describe('session logs start at the first byte of the session', () => {
  it('Settings › every session: the log has the header, then the greeting, though the window asked after painting it', async () => {
    const app = setup(true);
    const id = await app.open('o1');
    // The window paints the first screen before its log.start reaches the service.
    await app.until('the greeting is on the screen', () => (app.painted.get(id) ?? '').includes(GREETING));
    const { path } = await app.client.handlers['log.start']({ kind: 'text', sessionId: id });
    await app.until('the prompt is on the screen', () => (app.painted.get(id) ?? '').includes('lab$ '));
    await app.client.handlers['session.write']({ sessionId: id, data: 'echo "after-$((20+1))"; exit\r' });
    await app.until('the session closed', () => app.closed.has(id));
    const log = await logOnce(path, /^after-21$/m);
    const body = log.slice(log.indexOf('\n\n') + 2);
    assert.match(log, /^# TagSSH session log\n/);
    assert.equal(body.split('\n')[0], GREETING, `the first line after the header is the greeting:\n${log}`);
    assert.match(body, /^after-21$/m);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'config', 'logs')).mode & 0o777, 0o700);
    app.client.dispose();
  });

  it('a log turned on by hand later starts from that moment, not with the earlier screen', async () => {
    const app = setup(false);
    const id = await app.open('o2');
    await app.until('the prompt is on the screen', () => (app.painted.get(id) ?? '').includes('lab$ '));
    await app.client.handlers['session.write']({ sessionId: id, data: 'echo "before-$((1+1))"\r' });
    await app.until('before-2 is on the screen', () => /before-2/.test(app.painted.get(id) ?? ''));
    const { path } = await app.client.handlers['log.start']({ kind: 'text', sessionId: id });
    await app.client.handlers['session.write']({ sessionId: id, data: 'echo "during-$((2+1))"; exit\r' });
    await app.until('the session closed', () => app.closed.has(id));
    const log = await logOnce(path, /^during-3$/m);
    assert.ok(!log.includes(GREETING) && !/^before-2$/m.test(log), log);
    app.client.dispose();
  });

  it('a tab reconnecting with its log on: the new session is logged from its greeting, though the window asks after painting it', async () => {
    const app = setup(false);
    // The first session: "Log to file" ticked by hand while it runs.
    const first = await app.open('o5');
    await app.until('the first prompt is on the screen', () => (app.painted.get(first) ?? '').includes('lab$ '));
    const { path: firstPath } = await app.client.handlers['log.start']({ kind: 'text', sessionId: first });
    await app.client.handlers['session.write']({ sessionId: first, data: 'echo "first-$((3+4))"; exit\r' });
    await app.until('the first session closed', () => app.closed.has(first));
    await logOnce(firstPath, /^first-7$/m);

    // Reconnect: the open itself asks for the log; log.start comes a round trip later, as in the app.
    const second = await app.open('o6', {});
    await app.until('the greeting is on the screen again', () => (app.painted.get(second) ?? '').includes(GREETING));
    const { path } = await app.client.handlers['log.start']({ kind: 'text', sessionId: second });
    assert.notEqual(path, firstPath, 'a new session, a new log');
    await app.until('the prompt is on the screen', () => (app.painted.get(second) ?? '').includes('lab$ '));
    await app.client.handlers['session.write']({ sessionId: second, data: 'echo "second-$((4+4))"; exit\r' });
    await app.until('the second session closed', () => app.closed.has(second));
    const log = await logOnce(path, /^second-8$/m);
    const body = log.slice(log.indexOf('\n\n') + 2);
    assert.equal(body.split('\n')[0], GREETING, `the first line after the header is the new session's greeting:\n${log}`);
    assert.ok(!/^first-7$/m.test(log), 'only the new session');
    assert.doesNotMatch(log, /^\[\d{4}-/m, 'no time stamps: the Settings say none');
    app.client.dispose();
  });

  it('an open that asks for the log with time stamps gets them; one that asks for none is not logged', async () => {
    const app = setup(false);
    const before = logFiles();
    const plain = await app.open('o7');
    await app.until('the prompt is on the screen', () => (app.painted.get(plain) ?? '').includes('lab$ '));
    assert.deepEqual(logFiles(), before, 'no log unless asked for');
    await app.client.handlers['session.write']({ sessionId: plain, data: 'exit\r' });
    await app.until('the plain session closed', () => app.closed.has(plain));

    const stamped = await app.open('o8', { timestamps: true });
    await app.until('the prompt is on the screen', () => (app.painted.get(stamped) ?? '').includes('lab$ '));
    const { path } = await app.client.handlers['log.start']({ kind: 'text', sessionId: stamped });
    await app.client.handlers['session.write']({ sessionId: stamped, data: 'exit\r' });
    await app.until('the session closed', () => app.closed.has(stamped));
    const log = await logOnce(path, new RegExp(`^\\[[^\\]]+[+-]\\d\\d:\\d\\d\\] ${GREETING.replace(/[()]/g, '\\$&')}$`, 'm'));
    assert.match(log, /^# Format: plain text, time stamp per line$/m);
    app.client.dispose();
  });

  it('a session that fails to open leaves no log file behind', async () => {
    const app = setup(true);
    const before = logFiles();
    const stranger = makeKey(join(dir, 'keys'), 'ed25519', { name: 'not-authorized' });
    app.setTarget(target({ identityFile: stranger.privatePath }));
    await assert.rejects(app.open('o3'), /AUTH_FAILED|authenticat|key/i);
    app.setTarget(target({ port: 1 }));
    await assert.rejects(app.open('o4'));
    await assert.rejects(app.open('o9', {}), 'nor does one that asked for its log');
    assert.deepEqual(logFiles(), before);
    app.client.dispose();
  });
});
