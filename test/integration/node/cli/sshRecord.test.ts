import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { SettingsSchema } from '../../../../src/common/model/settings.js';
import { parseCast } from '../../../../src/common/log/asciicast.js';
import { jsonSettingsStore } from '../../../../src/node/store/settings.js';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags, type Seeded } from '../../../lab/seed.js';
import { runProcess, runTagssh, TAGSSH_BIN, type Run } from '../../../lab/run.js';
import { checkAsciicastV2 } from '../../../support/asciicastSpec.js';

// Work logs from the command line, against a real sshd on a real PTY: `--record FILE.cast`
// (asciicast v2 with timing and resizes, checked against the spec and played by the real
// asciinema), `--log FILE -- COMMAND` (a command's run, with the same header), the Settings'
// folder, name pattern and format for files with no name given, `tagssh replay`, and wrong inputs.

const root = join(import.meta.dirname, '../../../..');
let lab: CliLab;
let seeded: Seeded;
const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  ...lab.moto.env,
  HOME: lab.home,
  TAGSSH_HOME: join(lab.home, 'tagssh'),
  TERM: 'xterm-256color',
});
const tagssh = (...args: string[]) => runTagssh(args, env());

/** A program on a real PTY of ROWSxCOLS driven by `steps` (test/lab/ptyDriver.py). */
function onPty(cmd: string[], steps: unknown[], size: [number, number] = [24, 80]): Promise<Run> {
  return runProcess('python3', [join(root, 'test/lab/ptyDriver.py'), String(size[0]), String(size[1]), JSON.stringify(steps), '--', ...cmd], { env: env() });
}
const sshOnPty = (args: string[], steps: unknown[]) => onPty([process.execPath, TAGSSH_BIN, 'ssh', 'recorded', '--accept-new', ...args], steps);

before(async () => {
  lab = await startCliLab({ prefix: 'tagssh-cli-record-', keyName: 'record-key', sshd: { address: '127.0.0.112' } });
  seeded = await seedInstance(lab.ec2, {
    name: 'recorded',
    eip: lab.host.address,
    keyName: 'record-key',
    instanceType: 't3.small',
    imageId: 'ami-1e749f67',
    tags: sshdTags(lab.host),
  });
});
after(async () => {
  await lab?.stop();
});

describe('tagssh ssh --record', () => {
  const file = () => join(lab.home, 'session.cast');

  it('writes asciicast v2 with timing and the resize, valid by the spec, output only', async () => {
    const r = await sshOnPty(
      ['--record', file()],
      [
        ['send', 'printf "\\033[1;31mred\\033[0m %s\\n" "日本語"; stty size\r'],
        ['wait', '24 80'],
        ['resize', 30, 100],
        ['sleep', 0.3],
        ['send', 'stty size; read -r -s -p "secret: " pw; echo; exit 0\r'],
        ['wait', '[^"]secret: '],
        ['send', 'typed-secret\r'],
      ],
    );
    assert.match(r.stdout, /EXIT:0\n$/, r.stdout);
    assert.equal(statSync(file()).mode & 0o777, 0o600);
    const text = readFileSync(file(), 'utf8');
    const spec = checkAsciicastV2(text);
    assert.deepEqual(spec.problems, []);
    assert.deepEqual([spec.header!.width, spec.header!.height], [80, 24]);
    assert.deepEqual(spec.resizes, ['100x30']);
    assert.ok(spec.output.includes('\x1b[1;31mred\x1b[0m 日本語'), spec.output);
    assert.match(spec.output, /30 100/);
    assert.ok(!spec.output.includes('typed-secret'), 'what the remote side did not echo is not recorded');
    const tag = spec.header!.tagssh as Record<string, string>;
    assert.deepEqual([tag.instanceId, tag.name, tag.ami, tag.user, tag.transport], [seeded.id, 'recorded', 'ami-1e749f67', lab.host.user, 'direct']);
    // The resize comes between the two `stty size` answers, with its time.
    const cast = parseCast(text);
    const at = (pred: (e: (typeof cast.events)[number]) => boolean) => cast.events.find(pred)!.t;
    assert.ok(
      at((e) => e.code === 'o' && e.data.includes('24 80')) <= at((e) => e.code === 'r') &&
        at((e) => e.code === 'r') <= at((e) => e.code === 'o' && e.data.includes('30 100')),
    );
  });

  it('the real asciinema plays and prints the same file: the same bytes as TagSSH recorded', async () => {
    const spec = checkAsciicastV2(readFileSync(file(), 'utf8'));
    const play = await runProcess('asciinema', ['play', '-s', '20', file()], { env: env() });
    assert.equal(play.code, 0, play.stderr);
    assert.equal(play.stdout, spec.output);
    // asciinema cat reads keys from /dev/tty: on a PTY, whose output is the recording's output.
    const cat = await onPty(['asciinema', 'cat', file()], []);
    assert.ok(cat.stdout.replace(/\nEXIT:0\n$/, '').includes(spec.output.replace(/\r?\n/g, '\r\n').slice(-40)), cat.stdout);
  });

  it('tagssh replay plays it back: the same output, with its timing scaled by --speed', async () => {
    const spec = checkAsciicastV2(readFileSync(file(), 'utf8'));
    const t0 = Date.now();
    const r = await tagssh('replay', file(), '--speed', '100');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, spec.output);
    assert.ok(Date.now() - t0 < 10_000);
    // A recording the real asciinema wrote plays the same way.
    const upstream = join(root, 'test/fixtures/upstream/asciinema/rec-2.2.0.cast');
    const theirs = await tagssh('replay', upstream, '--speed', '50');
    assert.equal(theirs.code, 0, theirs.stderr);
    assert.equal(theirs.stdout, checkAsciicastV2(readFileSync(upstream, 'utf8')).output);
    // A long pause shortened by --idle-time-limit (short flags too): a minute-long gap plays in a moment.
    const gap = join(lab.home, 'gap.cast');
    writeFileSync(gap, '{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "one "]\n[60.1, "o", "two"]\n');
    const t1 = Date.now();
    const idle = await tagssh('replay', gap, '-i', '0.2', '-s', '2');
    assert.equal(idle.code, 0, idle.stderr);
    assert.equal(idle.stdout, 'one two');
    assert.ok(Date.now() - t1 < 8_000, `${Date.now() - t1} ms`);
  });

  it('a recording of a remote COMMAND (--record -- COMMAND) names the command; --log -- COMMAND writes the same header in text', async () => {
    const castFile = join(lab.home, 'cmd.cast');
    const logFile = join(lab.home, 'cmd.log');
    const r = await tagssh('ssh', 'recorded', '--accept-new', '--record', castFile, '--log', logFile, '--', 'echo "out $((6*7))"; echo err-line >&2; exit 3');
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, 'out 42\n');
    assert.equal(r.stderr.includes('err-line'), true);
    const spec = checkAsciicastV2(readFileSync(castFile, 'utf8'));
    assert.deepEqual(spec.problems, []);
    assert.equal(spec.header!.command, 'echo "out $((6*7))"; echo err-line >&2; exit 3');
    assert.match(spec.output, /out 42\n/);
    const log = readFileSync(logFile, 'utf8');
    assert.match(log, new RegExp(`^# Instance: ${seeded.id}$`, 'm'));
    assert.match(log, /^# Command: echo "out \$\(\(6\*7\)\)"; echo err-line >&2; exit 3$/m);
    assert.match(log, /^out 42$/m);
    assert.match(log, /^err-line$/m);
  });
});

describe('log headers, the Settings folder, pattern and format', () => {
  it('the header names instance id, Name, type, AMI, region, user, transport and the local user', async () => {
    const f = join(lab.home, 'header.log');
    const r = await tagssh('ssh', 'recorded', '--accept-new', '--log', f, '--', 'true');
    assert.equal(r.code, 0, r.stderr);
    const log = readFileSync(f, 'utf8');
    for (const re of [
      new RegExp(`^# Instance: ${seeded.id}$`),
      /^# Name: recorded$/,
      /^# Type: t3\.small$/,
      /^# AMI: ami-1e749f67$/,
      /^# Region: us-east-1$/,
      new RegExp(`^# User: ${lab.host.user}$`),
      /^# Transport: direct$/,
      new RegExp(`^# Local user: ${userInfo().username}@${hostname().replace(/\./g, '\\.')}$`),
    ])
      assert.match(log, new RegExp(re.source, 'm'));
  });

  it('with no file named, --log and --record go to the Settings folder under the pattern; "every session" in both formats logs a shell, not a COMMAND', async () => {
    const folder = join(lab.home, 'work-logs');
    jsonSettingsStore(join(lab.home, 'tagssh', 'config', 'settings.json')).set(
      SettingsSchema.parse({ sessionLog: { always: false, folder, namePattern: '{name}_{instanceId}_{yyyyMMdd-HHmmss}.log', format: 'both' } }),
    );
    const r = await tagssh('ssh', 'recorded', '--accept-new', '--log', '--record', '--', 'echo named');
    assert.equal(r.code, 0, r.stderr);
    const names = readdirSync(folder).sort();
    const stamp = '\\d{8}-\\d{6}';
    assert.equal(names.length, 2, names.join());
    assert.match(names[0]!, new RegExp(`^recorded_${seeded.id}_${stamp}\\.cast$`));
    assert.equal(names[1], names[0]!.replace(/\.cast$/, '.log'), 'the recording sits beside the log under the same name');
    assert.equal(statSync(folder).mode & 0o777, 0o700);

    jsonSettingsStore(join(lab.home, 'tagssh', 'config', 'settings.json')).set(SettingsSchema.parse({ sessionLog: { always: true, folder, format: 'both' } }));
    const cmd = await tagssh('ssh', 'recorded', '--accept-new', '--', 'echo not-logged');
    assert.equal(cmd.code, 0);
    assert.equal(readdirSync(folder).length, 2, 'a remote COMMAND is not logged by "every session"');
    const sh = await sshOnPty([], [['send', 'echo every-$((1+1)); exit 0\r']]);
    assert.match(sh.stdout, /EXIT:0\n$/);
    const after = readdirSync(folder).sort();
    assert.equal(after.length, 4, after.join());
    const newest = after.filter((n) => !names.includes(n));
    assert.match(
      readFileSync(
        join(
          folder,
          newest.find((n) => n.endsWith('.log'))!,
        ),
        'utf8',
      ),
      /^every-2\r?$/m,
    );
    assert.deepEqual(
      checkAsciicastV2(
        readFileSync(
          join(
            folder,
            newest.find((n) => n.endsWith('.cast'))!,
          ),
          'utf8',
        ),
      ).problems,
      [],
    );
    jsonSettingsStore(join(lab.home, 'tagssh', 'config', 'settings.json')).set(SettingsSchema.parse({}));
  });
});

describe('wrong inputs', () => {
  it('--record into a file that exists or a folder that does not is refused before connecting; the file is left as it was', async () => {
    const existing = join(lab.home, 'existing.cast');
    writeFileSync(existing, 'keep me\n');
    const r = await tagssh('ssh', 'recorded', '--record', existing, '--', 'true');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Cannot record into .*existing\.cast: the file exists\./);
    assert.equal(readFileSync(existing, 'utf8'), 'keep me\n');
    const nowhere = await tagssh('ssh', 'recorded', '--record', join(lab.home, 'no', 'such', 'dir', 'x.cast'), '--', 'true');
    assert.equal(nowhere.code, 2);
    assert.match(nowhere.stderr, /Cannot record into .*x\.cast: ENOENT/);
    const raw = await tagssh('ssh', 'recorded', '--record', join(lab.home, 'raw.cast'), '--raw');
    assert.equal(raw.code, 2);
    assert.match(raw.stderr, /--raw only changes a session log/);
    assert.equal(existsSync(join(lab.home, 'raw.cast')), false);
  });

  it('tagssh replay: a missing file, a file that is not a recording, a bad --speed or --idle-time-limit', async () => {
    const missing = await tagssh('replay', join(lab.home, 'nope.cast'));
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /Cannot read .*nope\.cast: no such file/);
    mkdirSync(join(lab.home, 'bad'), { recursive: true });
    writeFileSync(join(lab.home, 'bad', 'v1.cast'), '{"version": 1, "width": 80, "height": 24, "stdout": []}\n');
    const v1 = await tagssh('replay', join(lab.home, 'bad', 'v1.cast'));
    assert.equal(v1.code, 2);
    assert.match(v1.stderr, /is not an asciicast v2 recording \(line 1: version is 1, not 2\)/);
    writeFileSync(join(lab.home, 'bad', 'broken.cast'), '{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "ok"]\n[0.2, "r", "wide"]\n');
    const broken = await tagssh('replay', join(lab.home, 'bad', 'broken.cast'));
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /line 3: a resize is "COLSxROWS"/);
    for (const args of [
      ['--speed', '0'],
      ['--speed', 'fast'],
      ['--idle-time-limit', '-1'],
    ]) {
      const r = await tagssh('replay', join(lab.home, 'session.cast'), ...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /expected (a factor|seconds) above 0/);
    }
  });

  it('tagssh replay on a terminal: q stops a long pause at once; a clipboard-writing sequence in a recording from elsewhere is not played', async () => {
    const f = join(lab.home, 'bad', 'slow.cast');
    writeFileSync(f, '{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "before \\u001b]52;c;cHduZWQ=\\u0007shown\\r\\n"]\n[60, "o", "after a minute"]\n');
    const t0 = Date.now();
    const r = await onPty(
      [process.execPath, TAGSSH_BIN, 'replay', f],
      [
        ['wait', 'shown'],
        ['send', 'q'],
      ],
    );
    assert.match(r.stdout, /EXIT:0\n$/);
    assert.ok(Date.now() - t0 < 20_000, 'q did not wait out the pause');
    assert.match(r.stdout, /before shown/);
    assert.ok(!r.stdout.includes(']52;'), 'the OSC 52 clipboard write was dropped');
    assert.ok(!r.stdout.includes('after a minute'));
    assert.match(r.stdout, /Space pauses, q stops\./);
  });
});
