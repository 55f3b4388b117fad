import { AppError, isAppError } from '../../../../common/errors.js';
import { escapeControls } from '../../../../common/safeText.js';
import { formatTunnelText, parseTunnelText, tunnelProblems, type TunnelKind, type TunnelProblem, type TunnelSpec } from '../../../../common/tunnels/spec.js';
import { targetOptionsFrom } from '../../connectOptions.js';
import { awsScopeFrom } from '../../awsFlags.js';
import { printJson, progressLine, withJsonErrors } from '../../output.js';
import type { TunnelFlags } from './flags.js';
import { connectInteractively } from '../../interactiveConnect.js';
import { connect } from '../../../ssh/connection.js';
import { connectTargetFor } from '../../../ssh/target.js';
import type { ConnectTarget } from '../../../ssh/types.js';
import type { TargetOptions } from '../../../ssh/target.js';
import type { Instance } from '../../../../common/model/instance.js';
import type { SavedTunnel } from '../../../../common/tunnels/contract.js';
import { TunnelRunner, WAIT_MS, type ForwardStatus, type RebuildInfo, type RetryInfo, type TunnelStatus } from '../../../tunnels/runner.js';
import type { AppErrorData } from '../../../../common/errors.js';
import { errorLines } from '../../errorWords.js';
import { linkDeadline } from '../../../tunnels/linkPlan.js';
import { specOf } from '../../../tunnels/manager.js';
import { checkSavedNames, chooseSaved, FLAG, instanceText, noneApplies, savedFor, savedTable, savedText } from './savedChoice.js';

// The terminal side of `tagssh tunnel`: flags → specs (each problem named by its flag), and/or the
// app's saved tunnels that apply to the instance (savedChoice.ts); one connection
// through the engine (Name/id, jump hosts, host-key trust as `tagssh ssh`), a list of what is open
// on stdout, drops and reconnects on stderr, Ctrl-C to close. `--list` shows the saved tunnels.

const FORM: Record<TunnelKind, string> = { local: '[bind:]port:host:hostport', dynamic: '[bind:]port', remote: '[bind:]port:host:hostport' };

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** A spec problem in the CLI's words. */
function problemWords(kind: TunnelKind, p: TunnelProblem, spec: TunnelSpec | null): string {
  switch (p.code) {
    case 'syntax':
      return `expected ${FORM[kind]}`;
    case 'portInvalid':
      return p.field === 'hostPort'
        ? 'the host port must be a number from 1 to 65535'
        : kind === 'remote'
          ? 'the port must be a number from 1 to 65535'
          : 'the port must be a number from 1 to 65535 (or 0 for any free port)';
    case 'portPrivileged':
      return `local port ${spec?.port} is below 1024, which only root may listen on; pick 1024 or above`;
    case 'hostMissing':
      return `the host to connect to is missing (${FORM[kind]})`;
    case 'hostInvalid':
      return `"${escapeControls(spec?.host ?? '')}" is not a host name or address`;
    case 'hostPortMissing':
      return `the host port is missing (${FORM[kind]})`;
    case 'bindImplicitAll':
      return 'an empty or * bind address would listen on every interface; write 0.0.0.0 (or ::) if that is meant, or leave it out for 127.0.0.1';
    case 'bindInvalid':
      return `"${escapeControls(spec?.bind ?? '')}" is not an address to listen on`;
    case 'hostNotAllowed':
      return `-D takes only ${FORM.dynamic}; the destination comes from the SOCKS client`;
  }
}

/** The specs the flags ask for, in the order given per flag (none: the saved tunnels run); throws on the first bad one. */
function specsFromFlags(flags: Pick<TunnelFlags, 'local' | 'dynamic' | 'remote'>, asRoot = isRoot()): TunnelSpec[] {
  const out: TunnelSpec[] = [];
  const groups: Array<[TunnelKind, string[] | undefined]> = [
    ['local', flags.local],
    ['dynamic', flags.dynamic],
    ['remote', flags.remote],
  ];
  for (const [kind, texts] of groups) {
    for (const text of texts ?? []) {
      const { spec, problems } = parseTunnelText(kind, text, asRoot);
      const first = problems[0];
      if (first || !spec)
        throw new AppError(
          'INVALID_INPUT',
          `${FLAG[kind]} ${escapeControls(text)}: ${first ? problemWords(kind, first, spec) : `expected ${FORM[kind]}`}.`,
          `Example: tagssh tunnel NAME ${kind === 'dynamic' ? '-D 1080' : `${FLAG[kind]} 8080:localhost:80`}`,
        );
      out.push(spec);
    }
  }
  return out;
}

/** One line per forward, addresses first so they can be copied. */
function describeForward(f: ForwardStatus, label: string): string {
  const s = f.spec;
  const flag = FLAG[s.kind];
  if (s.kind === 'dynamic') return `  ${f.address}  SOCKS5 proxy, destinations reached from ${label}  (${flag} ${formatTunnelText(s)})`;
  const dest = formatTunnelText({ kind: 'dynamic', port: s.hostPort!, bind: s.host! });
  if (s.kind === 'local') return `  ${f.address}  →  ${dest} as seen from ${label}  (${flag} ${formatTunnelText(s)})`;
  return `  ${label} ${f.address}  →  ${dest} on this machine  (${flag} ${formatTunnelText(s)})`;
}

/** Where rebuilds go: the first resolve's instance id in its region, asking nothing and starting nothing. */
function pinnedOptions(opts: TargetOptions, first: Pick<ConnectTarget, 'instanceId' | 'region'>): { id: string; opts: TargetOptions } | null {
  if (!first.instanceId || !first.region) return null;
  const o: TargetOptions = { ...opts, regions: [first.region] };
  delete o.pick;
  delete o.start;
  delete o.acceptNew;
  delete o.onProgress;
  delete o.onInstance;
  return { id: first.instanceId, opts: o };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const clockTime = (d: Date) => d.toTimeString().slice(0, 8);

/** The one line a rebuild prints: when, which, how long without a link, and why the old one went. */
function rebuiltLine(label: string, info: RebuildInfo, at: Date): string {
  if (info.planned)
    return `[${clockTime(at)}] Link to ${label} replaced ahead of its transport's time limit (rebuild ${info.count}): no gap, open connections finish on the old link.`;
  const why = info.cause ? `: it had dropped (${escapeControls(info.cause.message)})` : '';
  const tries = info.attempts === 1 ? '1 attempt' : `${info.attempts} attempts`;
  return `[${clockTime(at)}] Link to ${label} rebuilt (rebuild ${info.count}) after ${seconds(info.gapMs)}, ${tries}${why}; the local ports stayed open.`;
}

/**
 * Rebuild failures that retrying alone will not clear: credentials that could not be refreshed,
 * access taken away. Each is said once (the runner keeps trying, so a fresh `aws sso login`
 * brings the link back by itself); passing ones (sshd still restarting) stay on the progress line.
 */
const NEEDS_A_PERSON = new Set<AppErrorData['code']>(['NO_CREDENTIALS', 'CREDENTIALS_EXPIRED', 'ACCESS_DENIED']);

/** The line a rebuild failure that needs a person prints, with what to do on the next. */
function retryLines(label: string, r: RetryInfo, at: Date): string {
  const next = ` The local ports stay open; trying again (next in ${seconds(r.nextInMs)}) until it works or Ctrl-C.`;
  return `[${clockTime(at)}] Rebuilding the link to ${label} failed: ${errorLines(r.error, next)}`;
}

/** The progress line while the link is down (on a terminal only; overwritten, never logged). */
function rebuildingText(label: string, s: TunnelStatus): string {
  const why = s.error ? ` (${s.error.message})` : '';
  return `Rebuilding the link to ${label}${why}; new connections wait up to ${WAIT_MS / 1000} s…`;
}

/** A saved tunnel the file holds but this process may not run (a hand-edited file, a root-only port). */
function checkSaved(t: SavedTunnel, asRoot = isRoot()): TunnelSpec {
  const spec = specOf(t);
  const first = tunnelProblems(spec, asRoot)[0];
  if (first) throw new AppError('INVALID_INPUT', `Saved tunnel ${savedText(t)}: ${problemWords(t.kind, first, spec)}.`, "Change it in the app's Tunnels tab.");
  return spec;
}

export async function runTunnel(name: string | undefined, flags: TunnelFlags): Promise<number> {
  if (flags.list) {
    let code = 0;
    await withJsonErrors(flags.json, async () => void (code = await listSaved(name, flags)));
    return code;
  }
  if (flags.json) throw new AppError('INVALID_INPUT', '--json prints the saved tunnels: use it with --list (tagssh tunnel --list [NAME] --json).');
  if (name === undefined)
    throw new AppError(
      'INVALID_INPUT',
      'Name the instance: tagssh tunnel NAME [-L …] [-D …] [-R …] [--saved ID], or list the saved tunnels with tagssh tunnel --list.',
    );
  const progress = progressLine(!!process.stderr.isTTY);
  const { target, specs, targetOpts } = await resolveTunnels(name, flags, progress);
  const label = escapeControls(target.label);
  const runner = tunnelRunner(specs, target, targetOpts, flags, progress);
  try {
    await runner.start();
  } catch (e) {
    const d = isAppError(e) ? (e.details as { forward?: number } | undefined) : undefined;
    const spec = d?.forward !== undefined ? specs[d.forward] : undefined;
    if (spec && isAppError(e)) throw new AppError(e.code, `${FLAG[spec.kind]} ${formatTunnelText(spec)}: ${e.message}`, e.hint, e.details);
    throw e;
  } finally {
    progress.done();
  }
  await untilStopped(runner, label);
  return 0;
}

/** The instance NAME resolves to, and the forwards to run there: the flags', and the saved ones that apply. */
async function resolveTunnels(name: string, flags: TunnelFlags, progress: ReturnType<typeof progressLine>) {
  const flagSpecs = specsFromFlags(flags);
  // Without forwards as flags, the saved tunnels that apply run; with --saved, the ones named
  // run beside any flags. The file is read (and its schema loaded) only then.
  const useSaved = flagSpecs.length === 0 || !!flags.saved?.length;
  const saved = useSaved ? (await import('../../../tunnels/saved.js')).jsonTunnelStore().list() : [];
  checkSavedNames(saved, flags.saved ?? []);
  if (useSaved && saved.length === 0) throw noneApplies(null, 0);

  const targetOpts = { ...targetOptionsFrom(flags), ...awsScopeFrom(flags) };
  // The instance as the describe that resolves NAME reports it: its tags now, not as listed before.
  let instance: Instance | undefined;
  const target: ConnectTarget = await connectTargetFor(name, { ...targetOpts, onProgress: progress, onInstance: (i) => (instance = i) });
  let specs = flagSpecs;
  if (useSaved) {
    try {
      // connectTargetFor reports the target instance before it returns.
      const chosen = chooseSaved(saved, instance!, flags.saved);
      if (chosen.length === 0) throw noneApplies(instance!, saved.length);
      specs = [...flagSpecs, ...chosen.map((t) => checkSaved(t))];
    } catch (e) {
      progress.done();
      throw e;
    }
  }
  return { target, specs, targetOpts };
}

/** The runner of these forwards over one link to `first`, rebuilt after a drop. */
function tunnelRunner(specs: TunnelSpec[], first: ConnectTarget, targetOpts: TargetOptions, flags: TunnelFlags, progress: (m: string) => void): TunnelRunner {
  const keepaliveMs = flags.keepalive ? flags.keepalive * 1000 : undefined;
  // Rebuilds go to the instance the Name resolved to first, by its id: a Name re-tagged onto
  // another instance meanwhile must not move the tunnel there (its host key would be a first
  // contact, trusted on its own console's word). The key is trusted by then, so a rebuild asks
  // nothing and never starts an instance.
  const pinned = pinnedOptions(targetOpts, first);
  let target = first;
  return new TunnelRunner(specs, {
    acquire: async (attempt) => {
      // After a drop, look the instance up again (by id): a restarted instance may have a new address.
      // The first connection asks on the terminal for a first-seen host key or a key passphrase,
      // exactly as `tagssh ssh` does.
      if (attempt > 0 && pinned) target = await connectTargetFor(pinned.id, pinned.opts).catch(() => target);
      const openedAt = Date.now();
      const connection = attempt === 0 ? await connectInteractively(target, keepaliveMs, progress) : await connect(target, keepaliveMs ? { keepaliveMs } : {});
      return { connection, release: () => connection.close(), deadline: linkDeadline(target, openedAt) };
    },
  });
}

/** Says what is open, reports drops and rebuilds, and returns after Ctrl-C (throws when the link failed for good). */
async function untilStopped(runner: TunnelRunner, label: string): Promise<void> {
  // Ctrl-C is caught before the line that invites it is printed (a press in between ended the
  // process without closing the tunnels or printing their totals).
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const st = runner.status();
  process.stdout.write(`Tunnels through ${label}:\n${st.forwards.map((f) => describeForward(f, label)).join('\n')}\nPress Ctrl-C to close them.\n`);
  const rebuilding = progressLine(!!process.stderr.isTTY);
  let failed: AppError | undefined;
  const onFail = new Promise<void>((resolve) => {
    runner.on('state', (s: TunnelStatus) => {
      if (s.state === 'reconnecting') rebuilding(rebuildingText(label, s));
      if (s.state !== 'failed') return;
      rebuilding.done();
      failed = AppError.from(s.error ?? { code: 'SESSION_CLOSED', message: `The link to ${label} failed.` });
      resolve();
    });
  });
  let told = '';
  runner.on('retrying', (r: RetryInfo) => {
    if (!NEEDS_A_PERSON.has(r.error.code) || told === r.error.message) return;
    told = r.error.message;
    rebuilding.done();
    process.stderr.write(`${retryLines(label, r, new Date())}\n`);
  });
  runner.on('rebuilt', (info: RebuildInfo) => {
    told = '';
    rebuilding.done();
    process.stderr.write(`${rebuiltLine(label, info, new Date())}\n`);
    for (const f of runner.status().forwards)
      if (f.error) process.stderr.write(`${FLAG[f.spec.kind]} ${formatTunnelText(f.spec)}: ${escapeControls(f.error)}\n`);
  });
  await Promise.race([stopped, onFail]);
  runner.stop();
  if (failed) throw failed;
  const totals = runner.status().forwards.reduce((a, f) => ({ in: a.in + f.bytesIn, out: a.out + f.bytesOut }), { in: 0, out: 0 });
  process.stderr.write(`Tunnels closed (${totals.out} bytes sent, ${totals.in} bytes received).\n`);
}

/** `tagssh tunnel --list [NAME]`: every saved tunnel, or those that apply to NAME. */
async function listSaved(name: string | undefined, flags: TunnelFlags): Promise<number> {
  const given = [flags.local, flags.dynamic, flags.remote, flags.saved].some((v) => v?.length);
  if (given) throw new AppError('INVALID_INPUT', '--list only lists the saved tunnels: leave out -L, -D, -R and --saved, or leave out --list to start them.');
  const saved = (await import('../../../tunnels/saved.js')).jsonTunnelStore().list();
  const { instanceNamed } = await import('../../../aws/instances/lookup.js');
  const inst = name !== undefined ? await instanceNamed(name, awsScopeFrom(flags), flags.pick) : undefined;
  const shown = inst ? savedFor(saved, inst) : saved;
  if (flags.json) {
    printJson(shown);
    return 0;
  }
  if (shown.length === 0) {
    process.stdout.write(
      inst
        ? `No saved tunnel applies to ${instanceText(inst)}${saved.length ? ` (${saved.length} saved for other instances or tags)` : ''}.\n`
        : "No tunnels are saved. Save them in the app's Tunnels tab.\n",
    );
    return 0;
  }
  if (inst) process.stdout.write(`Saved tunnels for ${instanceText(inst)}:\n`);
  process.stdout.write(savedTable(shown));
  return 0;
}
