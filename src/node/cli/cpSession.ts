import { detailsAs, FileErrorDetailsSchema } from '../../common/errorDetails.js';
import { stat } from 'node:fs/promises';
import { AppError, isAppError, toAppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';
import type { AwsScope } from '../aws/scope.js';
import { FileSession, type TransferProgress } from '../files/index.js';
import type { CpFlags, planCopy } from './commands/cp.js';
import { targetOptionsFrom } from './connectOptions.js';
import { progressLine } from './output.js';
import { reportError } from './report.js';
import { connectInteractively, resolveWhileLoading } from './sshSession.js';

// The terminal side of `tagssh cp`: connect as `tagssh ssh` does (prompts included), then copy
// each source in turn over one SFTP channel, reporting progress on stderr.

const EXIT_COPY_FAILED = 1;
const EXIT_CONNECTION_LOST = 255;
const EXIT_INTERRUPTED = 130;

function mib(n: number): string {
  return `${(n / 1048576).toFixed(1)} MiB`;
}

function progressText(p: TransferProgress): string {
  const pct = p.totalBytes ? Math.floor((p.bytes / p.totalBytes) * 100) : 100;
  const eta = p.rate > 0 ? Math.round((p.totalBytes - p.bytes) / p.rate) : 0;
  const files = p.totalFiles > 1 ? ` ${p.files}/${p.totalFiles} files` : '';
  return `${p.current}  ${pct}%  ${mib(p.bytes)}/${mib(p.totalBytes)}  ${mib(p.rate)}/s  ETA ${Math.floor(eta / 60)}:${String(eta % 60).padStart(2, '0')}${files}`;
}

/** The engine's words, with the flags that fix them (the engine names no CLI flags). */
function inCliWords(e: AppError): AppError {
  const reason = detailsAs(e, FileErrorDetailsSchema)?.reason;
  if (reason === 'isDirectory') return new AppError(e.code, `${e.message.replace(/\.$/, '')} (not copied).`, 'Add -r to copy it with its contents.', e.details);
  if (e.code === 'CANCELLED') return new AppError(e.code, e.message, 'Run the same command with --resume to continue where it stopped.', e.details);
  return e;
}

function connectionLost(e: AppError, connClosed: boolean): boolean {
  return connClosed || e.code === 'SESSION_CLOSED' || e.code === 'CONNECT_FAILED' || e.code === 'TIMEOUT';
}

export async function runCopy(plan: ReturnType<typeof planCopy>, flags: CpFlags, scope: AwsScope): Promise<number> {
  const progress = progressLine(!!process.stderr.isTTY);
  const opts = targetOptionsFrom(flags);
  if (plan.remote.user) opts.user = plan.remote.user;
  let status = 0;
  let sources = plan.sources;
  // A missing local source is known before any connection is made: reported, the others copied.
  if (plan.direction === 'upload') {
    const present: string[] = [];
    for (const s of sources) {
      if (await stat(s).catch(() => null)) present.push(s);
      else {
        reportError(new AppError('NOT_FOUND', `${s} does not exist (not copied).`, 'Check the local path.'));
        status = EXIT_COPY_FAILED;
      }
    }
    if (present.length === 0) return status;
    sources = present;
  } else if (plan.sources.length > 1 || /[/\\]$/.test(plan.dest)) {
    if (!(await stat(plan.dest).catch(() => null))?.isDirectory())
      throw new AppError(
        'INVALID_INPUT',
        `${plan.dest} is not an existing directory, and several sources (or a path ending in /) need one.`,
        'Create the directory first (mkdir -p), or copy one source at a time.',
      );
  }
  const target = await resolveWhileLoading(plan.remote.name, { ...opts, ...scope, onProgress: progress });
  const conn = await connectInteractively(target, undefined, progress);
  progress.done();

  const show = flags.progress ?? !!process.stderr.isTTY;
  const bar = progressLine(show);
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
    let last = 0;
    const onProgress = (p: TransferProgress) => {
      const now = Date.now();
      // A terminal line is rewritten in place; a log gets a line a second.
      if (!process.stderr.isTTY && now - last < 1000 && p.bytes < p.totalBytes) return;
      last = now;
      bar(progressText(p));
    };
    const onResume = (src: string, bytes: number, complete: boolean) => {
      bar.done();
      process.stderr.write(
        `${escapeControls(complete ? `${src} is already complete at the destination (same SHA-256); not copied again.` : `Resuming ${src} from byte ${bytes} (the part already there has the same SHA-256).`)}\n`,
      );
    };
    const copyOpts = { recursive: !!flags.recursive, preserve: !!flags.preserve, resume: !!flags.resume, signal: ac.signal, onProgress, onResume };
    for (const src of sources) {
      try {
        if (plan.direction === 'upload') await fs.upload([src], plan.dest, copyOpts);
        else await fs.download([src], plan.dest, copyOpts);
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
