import { AppError } from '../errors.js';

// `s3://BUCKET[/prefix]`, as the aws CLI writes an S3 location: where `tagssh cp --via-s3` puts
// its short-lived objects. Bucket names follow S3's rules for new buckets (3-63 characters of
// lower-case letters, digits, dots and hyphens), so a typo is caught before any request.

export interface S3Location {
  bucket: string;
  /** Empty, or ending in '/': object keys are `${prefix}${name}`. */
  prefix: string;
}

const BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function parseS3Uri(raw: string): S3Location {
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(raw);
  if (!m)
    throw new AppError('INVALID_INPUT', `"${raw}" is not an S3 location: write it as s3://BUCKET or s3://BUCKET/prefix.`, undefined, {
      reason: 's3-location',
    });
  const bucket = m[1]!;
  if (!bucket)
    throw new AppError('INVALID_INPUT', `"${raw}" names no bucket: write it as s3://BUCKET or s3://BUCKET/prefix.`, undefined, { reason: 's3-location' });
  if (!BUCKET_RE.test(bucket) || bucket.includes('..'))
    throw new AppError('INVALID_INPUT', `"${bucket}" is not an S3 bucket name (3-63 lower-case letters, digits, dots and hyphens).`, undefined, {
      reason: 's3-location',
    });
  const path = (m[2] ?? '').replace(/^\/+/, '');
  return { bucket, prefix: path === '' || path.endsWith('/') ? path : `${path}/` };
}

/** How an S3 location is shown to people: `bucket/prefix` (never a presigned URL). */
export function s3Label(loc: S3Location, key?: string): string {
  return key === undefined ? `${loc.bucket}/${loc.prefix}`.replace(/\/$/, '') : `s3://${loc.bucket}/${key}`;
}
