import { detailsAs, FileErrorDetailsSchema } from '../../../../common/errorDetails.js';
import { AppError, toAppError } from '../../../../common/errors.js';
import { s3Label, type S3Location } from '../../../../common/files/s3Uri.js';
import { escapeControls } from '../../../../common/safeText.js';
import { defaultRegion, isAllRegions, type AwsScope } from '../../../aws/config/scope.js';
import { downloadViaS3, uploadViaS3, type S3CopyOptions } from '../../../files/s3Route.js';
import type { S3Store } from '../../../files/s3Store.js';
import type { SshConnection } from '../../../ssh/connection.js';
import { targetOptionsFrom } from '../../connectOptions.js';
import { connectInteractively, resolveWhileLoading } from '../../interactiveConnect.js';
import { progressLine } from '../../output.js';
import { reportError } from '../../report.js';
import { connectionLost, EXIT_CONNECTION_LOST, EXIT_COPY_FAILED, EXIT_INTERRUPTED, inCliWords, localSources, progressText } from './action.js';
import type { CpFlags } from './flags.js';
import type { CopyPlan } from './plan.js';

// `tagssh cp --via-s3 s3://BUCKET/prefix SRC… DST`: the same sides as any cp, the bytes through
// S3 (src/node/files/s3Route.ts). The bucket is checked before any connection is made, so a typo
// costs no SSM session; the S3 client is loaded only here.

/** The engine's words for a copy through S3, with the flags that fix them. */
function inS3Words(e: AppError): AppError {
  const d = detailsAs(e, FileErrorDetailsSchema);
  const hint = (extra: string) => new AppError(e.code, e.message, `${e.hint ? `${e.hint} ` : ''}${extra}`, e.details);
  switch (d?.reason) {
    case 's3-no-bucket':
      return new AppError(
        e.code,
        e.message,
        'Check the bucket in --via-s3 s3://BUCKET/prefix, and that --profile (or AWS_PROFILE) is the account that owns it.',
        e.details,
      );
    case 's3-not-file':
      return hint('Copy directories without --via-s3 (tagssh cp -r), or pack them into one file first (tar czf).');
    case 's3-missing-tool':
    case 's3-unreachable':
      return hint('Or copy without --via-s3.');
    default:
      return inCliWords(e);
  }
}

/** The region the S3 client starts from (it follows the bucket to its own): --region, else the default. */
async function startRegion(scope: AwsScope): Promise<string> {
  if (scope.regions?.length === 1 && !isAllRegions(scope)) return scope.regions[0]!;
  return defaultRegion(scope).catch(() => 'us-east-1');
}

export async function runS3Copy(plan: CopyPlan, flags: CpFlags, scope: AwsScope, location: S3Location): Promise<number> {
  const local = await localSources(plan);
  if (local.sources.length === 0) return local.status;
  const { sdkS3Store } = await import('../../../files/s3Store.js');
  const store = await sdkS3Store(scope, await startRegion(scope));
  let conn: SshConnection | undefined;
  try {
    try {
      await store.checkBucket(location.bucket);
    } catch (e) {
      reportError(inS3Words(toAppError(e)));
      return EXIT_COPY_FAILED;
    }
    const progress = progressLine(!!process.stderr.isTTY);
    const opts = targetOptionsFrom(flags);
    if (plan.remote.user) opts.user = plan.remote.user;
    const target = await resolveWhileLoading(plan.remote.name, { ...opts, ...scope, onProgress: progress });
    conn = await connectInteractively(target, undefined, progress);
    progress.done();
    return await copyEach(conn, plan, flags, local, store, location);
  } finally {
    store.close();
    conn?.close();
  }
}

/** Copies each source in turn through S3; the exit status as copyOver gives it. */
async function copyEach(
  conn: SshConnection,
  plan: CopyPlan,
  flags: CpFlags,
  local: { sources: string[]; status: number },
  store: S3Store,
  location: S3Location,
): Promise<number> {
  let status = local.status;
  const bar = progressLine(flags.progress ?? !!process.stderr.isTTY);
  const route = `via S3 ${s3Label(location)}`;
  let last = 0;
  const ac = new AbortController();
  const onSigint = () => ac.abort();
  process.once('SIGINT', onSigint);
  const opts: S3CopyOptions = {
    store,
    location,
    signal: ac.signal,
    onProgress: (p) => {
      const now = Date.now();
      // A terminal line is rewritten in place; a log gets a line a second.
      if (!process.stderr.isTTY && now - last < 1000 && p.bytes < p.totalBytes) return;
      last = now;
      bar(progressText(p, route));
    },
    onLeftBehind: (uri, err) => {
      bar.done();
      process.stderr.write(`tagssh: ${escapeControls(`could not delete ${uri}: ${err.message}`)}\n  → Delete it yourself: aws s3 rm ${uri}\n`);
      status = EXIT_COPY_FAILED;
    },
  };
  // Several sources go into a directory (as scp): a trailing / makes the instance refuse anything else.
  const dest = plan.direction === 'upload' && local.sources.length > 1 && !plan.dest.endsWith('/') ? `${plan.dest}/` : plan.dest;
  try {
    for (const src of local.sources) {
      try {
        await (plan.direction === 'upload' ? uploadViaS3(conn, src, dest, opts) : downloadViaS3(conn, src, dest, opts));
      } catch (e) {
        bar.done();
        const err = toAppError(e);
        if (err.code === 'CANCELLED') {
          reportError(err);
          return EXIT_INTERRUPTED;
        }
        if (connectionLost(err, conn.closed)) {
          reportError(err);
          return EXIT_CONNECTION_LOST;
        }
        reportError(inS3Words(err));
        status = EXIT_COPY_FAILED;
      }
    }
    bar.done();
    return status;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
