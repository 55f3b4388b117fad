import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TAGSSH_BIN, runTagssh } from '../../../lab/run.js';
import { ERROR_CODES } from '../../../../src/common/errors.js';

// `tagssh web` as a person runs it: the printed link works once, Enter prints a fresh one, every
// sign-in is reported, --open hands the browser a link that is never printed, Ctrl-C stops it,
// and a bad --port is named in the error.

const home = mkdtempSync(join(tmpdir(), 'tagssh-webcli-'));
after(() => rmSync(home, { recursive: true, force: true }));
const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', HOME: home, TAGSSH_HOME: join(home, 'tagssh'), ...extra });

interface Web {
  child: ChildProcessWithoutNullStreams;
  out(): string;
  waitFor(re: RegExp, from?: number): Promise<RegExpExecArray>;
}

function startWeb(args: string[], extraEnv: Record<string, string> = {}): Web {
  const child = spawn(process.execPath, [TAGSSH_BIN, 'web', ...args], { env: env(extraEnv), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return {
    child,
    out: () => out,
    async waitFor(re, from = 0) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const m = re.exec(out.slice(from));
        if (m) return m;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`never printed ${re}; printed:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

const LINK = /(http:\/\/127\.0\.0\.1:\d+\/)#ticket=([A-Za-z0-9_-]+)/;
const redeem = async (base: string, ticket: string) => (await fetch(`${base}session`, { method: 'POST', body: ticket })).status;

async function stop(web: Web): Promise<number | null> {
  const exited = new Promise<number | null>((r) => web.child.once('exit', (code) => r(code)));
  web.child.kill('SIGINT');
  return exited;
}

test('--no-open prints a one-use link; Enter prints a fresh one; sign-ins are reported; Ctrl-C exits 0', async () => {
  const web = startWeb(['--no-open', '--port', '0']);
  const [, base, ticket] = await web.waitFor(LINK);
  assert.match(web.out(), /It works once/);
  assert.equal(await redeem(base!, ticket!), 200);
  await web.waitFor(/A browser tab signed in \(1 so far\)/);
  assert.equal(await redeem(base!, ticket!), 401);
  const mark = web.out().length;
  web.child.stdin.write('\n');
  const [, , fresh] = await web.waitFor(LINK, mark);
  assert.notEqual(fresh, ticket);
  assert.equal(await redeem(base!, fresh!), 200);
  await web.waitFor(/signed in \(2 so far\)/);
  assert.equal(await stop(web), 0);
});

test('--open gives the browser a link of its own, never printed', async () => {
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  const opened = join(home, 'opened.txt');
  // Stands in for the desktop's opener: records the URL it was asked to open.
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const web = startWeb(['--port', '0'], { PATH: `${bin}:${process.env.PATH ?? ''}` });
  await web.waitFor(/opening it in your browser/);
  const deadline = Date.now() + 10_000;
  while (!existsSync(opened) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const [, base, ticket] = LINK.exec(readFileSync(opened, 'utf8'))!;
  assert.doesNotMatch(web.out(), /#ticket=/);
  assert.equal(await redeem(base!, ticket!), 200);
  assert.equal(await stop(web), 0);
});

test('a bad --port is refused naming the flag', async () => {
  for (const bad of ['abc', '70000', '-1']) {
    const r = await runTagssh(['web', '--no-open', '--port', bad], env());
    assert.equal(r.code, ERROR_CODES.INVALID_INPUT, r.stderr);
    assert.match(r.stderr, /--port/);
  }
});
