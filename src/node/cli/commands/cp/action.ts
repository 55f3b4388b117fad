import { detailsAs, FileErrorDetailsSchema } from '../../../../common/errorDetails.js';
import { stat } from 'node:fs/promises';
import { AppError, isAppError, toAppError } from '../../../../common/errors.js';
import { escapeControls } from '../../../../common/safeText.js';
import type { AwsScope } from '../../../aws/config/scope.js';
import { clock, measuredRate, mib, rememberRate, routeLine, routeOf, type CopyRoute } from '../../../files/copyRoute.js';
import { FileSession, type SkippedEntry, type TransferProgress } from '../../../files/index.js';
import type { CpFlags } from './flags.js';
import type { CopyPlan } from './plan.js';
import { targetOptionsFrom } from '../../connectOptions.js';
import { progressLine } from '../../output.js';
import { reportError } from '../../report.js';
import { cipherLine, connectInteractively, resolveWhileLoading } from '../../interactiveConnect.js';
import type { SshConnection } from '../../../ssh/connection.js';
import type { ConnectTarget } from '../../../ssh/types.js';

// The terminal side of `tagssh cp`: connect as `tagssh ssh` does (prompts included), then copy
// each source in turn over one SFTP channel, reporting progress on stderr.

export const EXIT_COPY_FAILED = 1;
export const EXIT_CONNECTION_LOST = 255;
export const EXIT_INTERRUPTED = 130;

/** A copy from this size on is announced with its route and expected time before it starts. */
const LARGE_COPY = 64 * 1024 * 1024;

/** The route as the progress line ends: "direct SSH", "via jump host …", "via S3 bucket/prefix". */
export function routeWords(route: CopyRoute): string {
  return route.kind === 'direct' ? 'direct SSH' : route.text;
}

export function progressText(p: TransferProgress, route: string): string {
  const pct = p.totalBytes ? Math.floor((p.bytes / p.totalBytes) * 100) : 100;
  const eta = p.rate > 0 ? Math.round((p.totalBytes - p.bytes) / p.rate) : 0;
  const files = p.totalFiles > 1 ? ` ${p.files}/${p.totalFiles} files` : '';
  return `${p.current}  ${pct}%  ${mib(p.bytes)}/${mib(p.totalBytes)}  ${mib(p.rate)}/s  ETA ${clock(eta)}${files}  ${route}`;
}

/** The engine's words, with the flags that fix them (the engine names no CLI flags). */
export function inCliWords(e: AppError): AppError {
  const reason = detailsAs(e, FileErrorDetailsSchema)?.reason;
  if (reason === 'isDirectory') return new AppError(e.code, `${e.message.replace(/\.$/, '')} (not copied).`, 'Add -r to copy it with its contents.', e.details);
  if (e.code === 'CANCELLED') return new AppError(e.code, e.message, 'Run the same command with --resume to continue where it stopped.', e.details);
  return e;
}

export function connectionLost(e: AppError, connClosed: boolean): boolean {
  return connClosed || e.code === 'SESSION_CLOSED' || e.code === 'CONNECT_FAILED' || e.code === 'TIMEOUT';
}

/** The local side, checked before any connection: missing sources reported (the others still copied), the destination a directory when it must be. */
export async function localSources(plan: CopyPlan): Promise<{ sources: string[]; status: number }> {
  if (plan.direction === 'upload') {
    const present: string[] = [];
    let status = 0;
    for (const s of plan.sources) {
      if (await stat(s).catch(() => null)) present.push(s);
      else {
        reportError(new AppError('NOT_FOUND', `${s} does not exist (not copied).`, 'Check the local path.'));
        status = EXIT_COPY_FAILED;
      }
    }
    return { sources: present, status };
  }
  if (plan.sources.length > 1 || /[/\\]$/.test(plan.dest)) {
    if (!(await stat(plan.dest).catch(() => null))?.isDirectory())
      throw new AppError(
        'INVALID_INPUT',
        `${plan.dest} is not an existing directory, and several sources (or a path ending in /) need one.`,
        'Create the directory first (mkdir -p), or copy one source at a time.',
      );
  }
  return { sources: plan.sources, status: 0 };
}

export async function runCopy(plan: CopyPlan, flags: CpFlags, scope: AwsScope): Promise<number> {
  const progress = progressLine(!!process.stderr.isTTY);
  const opts = targetOptionsFrom(flags);
  if (plan.remote.user) opts.user = plan.remote.user;
  // A missing local source is known before any connection is made: reported, the others copied.
  const local = await localSources(plan);
  if (local.sources.length === 0) return local.status;
  const target = await resolveWhileLoading(plan.remote.name, { ...opts, ...scope, onProgress: progress });
  const conn = await connectInteractively(target, undefined, progress);
  progress.done();
  if (flags.verbose) process.stderr.write(cipherLine(conn));
  return copyOver(conn, target, plan, flags, local);
}

/** The progress, resume, skip and route reports of one copy, on stderr; counts what was skipped. */
function copyReports(bar: ReturnType<typeof progressLine>, route: CopyRoute, show: boolean, direction: CopyPlan['direction']) {
  let last = 0;
  const reports = {
    skipped: 0,
    onProgress: (p: TransferProgress) => {
      const now = Date.now();
      // A terminal line is rewritten in place; a log gets a line a second.
      if (!process.stderr.isTTY && now - last < 1000 && p.bytes < p.totalBytes) return;
      last = now;
      bar(progressText(p, routeWords(route)));
    },
    onResume: (src: string, bytes: number, complete: boolean) => {
      bar.done();
      process.stderr.write(
        `${escapeControls(complete ? `${src} is already complete at the destination (same SHA-256); not copied again.` : `Resuming ${src} from byte ${bytes} (the part already there has the same SHA-256).`)}\n`,
      );
    },
    // An entry left out of a tree (a name that leads elsewhere, a symlink, a loop) is named as it
    // is met; the rest is copied, and the exit status says that not everything was (as a failed file does).
    onSkip: (s: SkippedEntry) => {
      bar.done();
      reports.skipped++;
      process.stderr.write(`tagssh: ${escapeControls(s.message)}\n`);
    },
    // Before a large copy: the route it takes and, from the last copy over it, how long it should take.
    onPlan: (bytes: number) => {
      if (show && bytes >= LARGE_COPY) process.stderr.write(`${escapeControls(routeLine(route, bytes, measuredRate(route, direction)))}\n`);
    },
  };
  return reports;
}

/** Copies each source in turn over one SFTP channel; the exit status as scp gives it. */
async function copyOver(
  conn: SshConnection,
  target: ConnectTarget,
  plan: CopyPlan,
  flags: CpFlags,
  local: { sources: string[]; status: number },
): Promise<number> {
  let status = local.status;
  const show = flags.progress ?? !!process.stderr.isTTY;
  const bar = progressLine(show);
  const route = routeOf(target);
  const ac = new AbortController();
  const onSigint = () => ac.abort();
  process.once('SIGINT', onSigint);
  let files: FileSession | undefined;
  try {
    files = await FileSession.open(conn);
    const fs = files;
    if (plan.direction === 'upload' && (plan.sources.length > 1 || plan.dest.endsWith('/'))) {
      const d = await fs.stat(plan.dest);
      if (!d?.isDirectory())
        throw new AppError(
          'INVALID_INPUT',
          `${target.label}:${plan.dest} is not an existing directory, and several sources (or a path ending in /) need one.`,
          `Create it first: tagssh ssh ${plan.remote.name} -- mkdir -p DIR`,
        );
    }
    const reports = copyReports(bar, route, show, plan.direction);
    const { onProgress, onResume, onSkip, onPlan } = reports;
    const copyOpts = {
      recursive: !!flags.recursive,
      preserve: !!flags.preserve,
      resume: !!flags.resume,
      signal: ac.signal,
      onProgress,
      onResume,
      onSkip,
      onPlan,
    };
    for (const src of local.sources) {
      try {
        const done = plan.direction === 'upload' ? await fs.upload([src], plan.dest, copyOpts) : await fs.download([src], plan.dest, copyOpts);
        rememberRate(route, plan.direction, done.bytes - done.skippedBytes, done.ms);
      } catch (e) {
        bar.done();
        const err = toAppError(e);
        if (err.code === 'CANCELLED') {
          reportError(inCliWords(err));
          return EXIT_INTERRUPTED;
        }
        if (connectionLost(err, conn.closed)) {
          reportError(err);
          return EXIT_CONNECTION_LOST;
        }
        reportError(inCliWords(err));
        status = EXIT_COPY_FAILED;
      }
    }
    bar.done();
    if (reports.skipped > 0) {
      process.stderr.write(`tagssh: skipped ${reports.skipped} ${reports.skipped === 1 ? 'entry' : 'entries'} (not copied, each named above).\n`);
      status = EXIT_COPY_FAILED;
    }
    return status;
  } catch (e) {
    bar.done();
    if (isAppError(e) && conn.closed) {
      reportError(e);
      return EXIT_CONNECTION_LOST;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
    files?.close();
    conn.close();
  }
}
