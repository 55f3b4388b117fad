import { AppError, isAppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';
import { formatTunnelText, parseTunnelText, type TunnelKind, type TunnelProblem, type TunnelSpec } from '../../common/tunnels/spec.js';
import { targetOptionsFrom } from '../cli/connectOptions.js';
import { awsScopeFrom } from '../cli/awsFlags.js';
import { progressLine } from '../cli/output.js';
import type { TunnelFlags } from '../cli/commands/tunnel.js';
import { connectInteractively } from '../cli/sshSession.js';
import { connect } from '../ssh/connection.js';
import { connectTargetFor } from '../ssh/target.js';
import type { ConnectTarget } from '../ssh/types.js';
import { TunnelRunner, type ForwardStatus, type TunnelStatus } from './runner.js';

// The terminal side of `tagssh tunnel`: flags → specs (each problem named by its flag), one
// connection through the engine (Name/id, jump hosts, host-key trust as `tagssh ssh`), a list of
// what is open on stdout, drops and reconnects on stderr, Ctrl-C to close.

const FLAG: Record<TunnelKind, string> = { local: '-L', dynamic: '-D', remote: '-R' };
const FORM: Record<TunnelKind, string> = { local: '[bind:]port:host:hostport', dynamic: '[bind:]port', remote: '[bind:]port:host:hostport' };

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** A spec problem in the CLI's words. */
export function problemWords(kind: TunnelKind, p: TunnelProblem, spec: TunnelSpec | null): string {
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

/** The specs the flags ask for, in the order given per flag; throws on the first bad one. */
export function specsFromFlags(flags: Pick<TunnelFlags, 'local' | 'dynamic' | 'remote'>, asRoot = isRoot()): TunnelSpec[] {
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
  if (out.length === 0)
    throw new AppError('INVALID_INPUT', 'Nothing to forward: give at least one -L, -D or -R.', 'Example: tagssh tunnel NAME -L 8080:localhost:80');
  return out;
}

/** One line per forward, addresses first so they can be copied. */
export function describeForward(f: ForwardStatus, label: string): string {
  const s = f.spec;
  const flag = FLAG[s.kind];
  if (s.kind === 'dynamic') return `  ${f.address}  SOCKS5 proxy, destinations reached from ${label}  (${flag} ${formatTunnelText(s)})`;
  const dest = formatTunnelText({ kind: 'dynamic', port: s.hostPort!, bind: s.host! });
  if (s.kind === 'local') return `  ${f.address}  →  ${dest} as seen from ${label}  (${flag} ${formatTunnelText(s)})`;
  return `  ${label} ${f.address}  →  ${dest} on this machine  (${flag} ${formatTunnelText(s)})`;
}

export async function runTunnel(name: string, flags: TunnelFlags): Promise<number> {
  const specs = specsFromFlags(flags);
  const progress = progressLine(!!process.stderr.isTTY);
  const targetOpts = { ...targetOptionsFrom(flags), ...awsScopeFrom(flags) };
  let target: ConnectTarget = await connectTargetFor(name, { ...targetOpts, onProgress: progress });
  const label = escapeControls(target.label);
  const keepaliveMs = flags.keepalive ? flags.keepalive * 1000 : undefined;

  const runner = new TunnelRunner(specs, {
    acquire: async (attempt) => {
      // After a drop, look the instance up again: a restarted instance may have a new address.
      // The first connection asks on the terminal for a first-seen host key or a key passphrase,
      // exactly as `tagssh ssh` does; a reconnect finds the key trusted by then and asks nothing.
      if (attempt > 0) target = await connectTargetFor(name, targetOpts).catch(() => target);
      const connection = attempt === 0 ? await connectInteractively(target, keepaliveMs, progress) : await connect(target, keepaliveMs ? { keepaliveMs } : {});
      return { connection, release: () => connection.close() };
    },
  });
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
  let last: TunnelStatus['state'] = st.state;
  runner.on('state', (s: TunnelStatus) => {
    const why = s.error ? `: ${escapeControls(s.error.message)}` : '';
    if (s.state === 'reconnecting' && last !== 'reconnecting')
      process.stderr.write(`Connection to ${label} lost${why} — reconnecting (listeners stay open)…\n`);
    else if (s.state === 'reconnecting') process.stderr.write(`Reconnect to ${label} failed${why}; trying again…\n`);
    else if (s.state === 'open' && last === 'reconnecting') {
      process.stderr.write(`Reconnected to ${label}.\n`);
      for (const f of s.forwards) if (f.error) process.stderr.write(`${FLAG[f.spec.kind]} ${formatTunnelText(f.spec)}: ${escapeControls(f.error)}\n`);
    }
    last = s.state;
  });
  await stopped;
  runner.stop();
  const totals = runner.status().forwards.reduce((a, f) => ({ in: a.in + f.bytesIn, out: a.out + f.bytesOut }), { in: 0, out: 0 });
  process.stderr.write(`Tunnels closed (${totals.out} bytes sent, ${totals.in} bytes received).\n`);
  return 0;
}
