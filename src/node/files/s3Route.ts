import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, toAppError } from '../../common/errors.js';
import { s3Label, type S3Location } from '../../common/files/s3Uri.js';
import type { SshConnection } from '../ssh/connection.js';
import type { ExecResult } from '../ssh/connectionTypes.js';
import { curlConfig, curlErrors, curlPercent, fetchCommand, inspectCommand, probeCommand, REMOTE_EXIT, sendCommand, withoutSecrets } from './s3Remote.js';
import type { S3Store } from './s3Store.js';
import type { TransferProgress } from './transfer.js';

// `tagssh cp --via-s3`: when the only way to an instance is a slow one (an SSM session carries a
// few hundred KB/s to a few MB/s), the bytes go through S3 instead and only commands go over the
// connection. TagSSH moves the file between this machine and S3 with the user's credentials; the
// instance moves it between S3 and its disk with curl and a presigned URL for that one object
// (so it needs no AWS credentials of its own). SHA-256 is checked on both ends; the instance
// writes under a temporary name and renames, as cp does; the object is deleted whatever happens.

/** The largest object one PutObject (and so one copy through S3) may carry. */
export const MAX_S3_OBJECT = 5 * 1024 ** 3;
/** How long a presigned URL works: S3 checks it when the transfer starts, not while it runs. */
export const URL_SECONDS = 15 * 60;

export interface S3CopyOptions {
  store: S3Store;
  location: S3Location;
  signal?: AbortSignal;
  onProgress?(p: TransferProgress): void;
  /** The object could not be deleted (the copy's own outcome stands). */
  onLeftBehind?(uri: string, err: AppError): void;
}

export interface S3CopyResult {
  bytes: number;
  ms: number;
  /** Where the file now is (the remote path for an upload, the local one for a download). */
  path: string;
}

const hex = (n: number) => randomBytes(n).toString('hex');

/** Progress of one phase of one file: bytes moved of `total`, at the rate since the phase began. */
function phaseReporter(o: S3CopyOptions, current: string, total: number) {
  const started = performance.now();
  return (bytes: number) => {
    const s = (performance.now() - started) / 1000;
    o.onProgress?.({ bytes, totalBytes: total, files: 0, totalFiles: 1, rate: s > 0 ? bytes / s : 0, current });
  };
}

/** A pass-through that hashes and counts what goes by. */
function hasher(onBytes: (n: number) => void) {
  const h = createHash('sha256');
  let n = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      h.update(chunk);
      n += chunk.length;
      onBytes(n);
      done(null, chunk);
    },
  });
  return { stream: t, digest: () => h.digest('hex'), bytes: () => n };
}

function tooLarge(what: string, size: number): AppError {
  return new AppError(
    'INVALID_INPUT',
    `${what} is ${(size / 1024 ** 3).toFixed(1)} GiB; a copy through S3 carries at most 5 GiB (one PutObject).`,
    'Split it (split -b 4G) and copy the parts, or copy it over the connection itself.',
    { reason: 's3-too-large', path: what },
  );
}

/** The instance's side, run with the presigned URL on stdin and its progress read from curl's bar. */
async function runRemote(
  conn: SshConnection,
  cmd: string,
  url: string,
  o: S3CopyOptions,
  progress: (bytes: number) => void,
  size: number,
): Promise<ExecResult> {
  let stderr = '';
  const r = await conn.exec(cmd, {
    stdin: curlConfig(url),
    onStderr: (c) => {
      const text = c.toString('utf8');
      stderr = (stderr + text).slice(-16384);
      const pct = curlPercent(text);
      if (pct !== null) progress(Math.round((pct / 100) * size));
    },
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return { ...r, stderr };
}

/** A failed instance-side script, as the error people read (curl's words, never a URL). */
export function remoteFailure(host: string, path: string, r: Pick<ExecResult, 'code' | 'stderr'>): AppError {
  const tool = /tagssh-missing (\S+)/.exec(r.stderr)?.[1];
  switch (r.code) {
    case REMOTE_EXIT.missingTool: {
      const pkg = tool === 'sha256sum' ? 'coreutils' : (tool ?? 'curl');
      return new AppError(
        'REMOTE_FAILED',
        `${host} has no ${tool ?? 'curl'}: a copy through S3 needs curl and sha256sum on the instance.`,
        `Install ${pkg} there (sudo dnf install -y ${pkg}, or sudo apt-get install -y ${pkg}).`,
        { reason: 's3-missing-tool', path: tool ?? 'curl' },
      );
    }
    case REMOTE_EXIT.curl: {
      const said = curlErrors(r.stderr) || `curl exited with ${/tagssh-curl (\d+)/.exec(r.stderr)?.[1] ?? 'an error'}`;
      return new AppError(
        'REMOTE_FAILED',
        `${host} could not move ${path} to or from S3: ${said}.`,
        'The instance needs a route to S3 (a public IP, a NAT gateway, or an S3 gateway endpoint in its VPC) and a clock within 15 minutes of the real time.',
        { reason: 's3-unreachable', path },
      );
    }
    case REMOTE_EXIT.checksum:
      return new AppError('REMOTE_FAILED', `${host}:${path} arrived with a different SHA-256 than the source; it was not kept.`, 'Run the copy again.', {
        reason: 'checksum',
        path,
      });
    case REMOTE_EXIT.noDirectory:
      return new AppError('NOT_FOUND', `The directory for ${host}:${path} does not exist.`, 'Create it first (mkdir -p), or choose another path.', { path });
    case REMOTE_EXIT.noSource:
      return new AppError('NOT_FOUND', `${host}:${path} does not exist.`, 'Check the remote path.', { path });
    case REMOTE_EXIT.notRegular:
      return new AppError('INVALID_INPUT', `${host}:${path} is not a regular file; a copy through S3 takes one file at a time.`, undefined, {
        reason: 's3-not-file',
        path,
      });
    case REMOTE_EXIT.unreadable:
    case REMOTE_EXIT.unwritable:
      return new AppError('REMOTE_FAILED', `Permission denied on ${host}:${path}.`, undefined, { reason: 'permission', path });
    default: {
      const said = withoutSecrets(
        r.stderr
          .split(/[\r\n]+/)
          .filter((l) => l.trim() && !/^[#\s\d.%]+$/.test(l))
          .join('; '),
      ).slice(0, 500);
      return new AppError('REMOTE_FAILED', `The copy through S3 failed on ${host} (exit ${r.code ?? 'signal'})${said ? `: ${said}` : ''}.`, undefined, {
        path,
      });
    }
  }
}

/** Deletes the object whatever the copy's outcome; a failure is told, not thrown. */
async function removeObject(o: S3CopyOptions, key: string): Promise<void> {
  try {
    await o.store.remove(o.location.bucket, key);
  } catch (e) {
    o.onLeftBehind?.(s3Label(o.location, key), toAppError(e));
  }
}

/** A local file → `dest` on the instance (into it when it is a directory). */
export async function uploadViaS3(conn: SshConnection, src: string, dest: string, o: S3CopyOptions): Promise<S3CopyResult> {
  const host = conn.target.label;
  const s = await lstat(src).catch(() => null);
  if (!s) throw new AppError('NOT_FOUND', `${src} does not exist (not copied).`, 'Check the local path.', { path: src });
  if (!s.isFile())
    throw new AppError('INVALID_INPUT', `${src} is not a regular file; a copy through S3 takes one file at a time.`, undefined, {
      reason: 's3-not-file',
      path: src,
    });
  if (s.size > MAX_S3_OBJECT) throw tooLarge(src, s.size);
  const started = performance.now();
  // curl, sha256sum and a writable directory there are checked before any byte goes to S3.
  const probe = await conn.exec(probeCommand(dest, basename(src)), o.signal ? { signal: o.signal } : {});
  if (probe.code !== 0) throw remoteFailure(host, dest, probe);
  const key = `${o.location.prefix}tagssh-cp-${hex(12)}`;
  try {
    const h = hasher(phaseReporter(o, `${basename(src)} → S3 ${s3Label(o.location)}`, s.size));
    const body: Readable = createReadStream(src).pipe(h.stream);
    await o.store.put(o.location.bucket, key, body, s.size, o.signal);
    if (h.bytes() !== s.size)
      throw new AppError('REMOTE_FAILED', `${src} changed size while it was read; not copied.`, 'Copy it again once it is complete.', { path: src });
    const url = await o.store.presign(o.location.bucket, key, 'GET', URL_SECONDS);
    const fetched = phaseReporter(o, `S3 → ${host}:${dest}`, s.size);
    const r = await runRemote(conn, fetchCommand(dest, basename(src), h.digest(), hex(6)), url, o, fetched, s.size);
    const path = /^tagssh-ok (.*)$/m.exec(r.stdout)?.[1];
    if (r.code !== 0 || path === undefined) throw remoteFailure(host, dest, r);
    fetched(s.size);
    return { bytes: s.size, ms: performance.now() - started, path };
  } finally {
    await removeObject(o, key);
  }
}

/** What the instance says of a file it is asked to send: its size and SHA-256. */
async function inspect(conn: SshConnection, src: string, o: S3CopyOptions): Promise<{ size: number; sha256: string }> {
  const r = await conn.exec(inspectCommand(src), o.signal ? { signal: o.signal } : {});
  const m = /^tagssh-file (\d+) ([0-9a-f]{64})$/m.exec(r.stdout);
  if (r.code !== 0 || !m) throw remoteFailure(conn.target.label, src, r);
  return { size: Number(m[1]), sha256: m[2]! };
}

/** Where a download lands: inside `dest` when it is an existing directory. */
async function localTarget(src: string, dest: string): Promise<string> {
  const d = await stat(dest).catch(() => null);
  return d?.isDirectory() ? join(dest, posix.basename(src)) : dest;
}

/** A file on the instance → local `dest` (into it when it is a directory). */
export async function downloadViaS3(conn: SshConnection, src: string, dest: string, o: S3CopyOptions): Promise<S3CopyResult> {
  const host = conn.target.label;
  const started = performance.now();
  const { size, sha256 } = await inspect(conn, src, o);
  if (size > MAX_S3_OBJECT) throw tooLarge(`${host}:${src}`, size);
  const target = await localTarget(src, dest);
  const tmp = join(dirname(target), `.${basename(target)}.tagssh-s3-${hex(6)}`);
  const key = `${o.location.prefix}tagssh-cp-${hex(12)}`;
  try {
    const url = await o.store.presign(o.location.bucket, key, 'PUT', URL_SECONDS);
    const sent = phaseReporter(o, `${host}:${src} → S3 ${s3Label(o.location)}`, size);
    const r = await runRemote(conn, sendCommand(src), url, o, sent, size);
    if (r.code !== 0) throw remoteFailure(host, src, r);
    const { body } = await o.store.get(o.location.bucket, key, o.signal);
    const h = hasher(phaseReporter(o, `S3 → ${target}`, size));
    await pipeline(body, h.stream, createWriteStream(tmp, { flags: 'wx' }), o.signal ? { signal: o.signal } : {}).catch((e: unknown) => {
      throw (e as { name?: string })?.name === 'AbortError'
        ? new AppError('CANCELLED', `The copy of ${host}:${src} through S3 was cancelled.`)
        : new AppError('REMOTE_FAILED', `Could not write ${tmp}: ${(e as Error).message}`, 'Check the local directory.', { path: tmp });
    });
    if (h.bytes() !== size || h.digest() !== sha256)
      throw new AppError(
        'REMOTE_FAILED',
        `${host}:${src} arrived with a different size or SHA-256 than the instance reported; it was not kept.`,
        'Run the copy again (was the file changing?).',
        {
          reason: 'checksum',
          path: src,
        },
      );
    await rename(tmp, target);
    return { bytes: size, ms: performance.now() - started, path: target };
  } finally {
    await rm(tmp, { force: true }).catch(() => undefined);
    await removeObject(o, key);
  }
}
