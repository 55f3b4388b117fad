import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type * as S3Sdk from '@aws-sdk/client-s3';
import { AppError } from '../../common/errors.js';
import { sdkAppError, sdkClientConfig } from '../aws/config/sdkClients.js';
import type { AwsScope } from '../aws/config/scope.js';
import { cjsExports } from '../aws/ec2/interop.js';

// The S3 port `tagssh cp --via-s3` needs (s3Route.ts), and its adapter over @aws-sdk/client-s3,
// loaded by import() only when a copy goes through S3. Credentials, profile and timeouts are the
// other SDK clients' (sdkClientConfig); the endpoint is the SDK's own reading of
// AWS_ENDPOINT_URL_S3 and the profile's [services] section. The client follows the bucket to its
// region: a presigned URL must be signed for the region the bucket lives in.

export interface S3Store {
  /** Fails with a worded error when the bucket is missing or out of reach; moves to the bucket's region. */
  checkBucket(bucket: string, signal?: AbortSignal): Promise<void>;
  put(bucket: string, key: string, body: Readable, length: number, signal?: AbortSignal): Promise<void>;
  get(bucket: string, key: string, signal?: AbortSignal): Promise<{ body: Readable; length: number | undefined }>;
  /** A URL that lets its holder GET or PUT this one object for `seconds`: a secret, never shown. */
  presign(bucket: string, key: string, method: 'GET' | 'PUT', seconds: number): Promise<string>;
  remove(bucket: string, key: string): Promise<void>;
  close(): void;
}

const PERMISSIONS = 's3:ListBucket on the bucket and s3:PutObject, s3:GetObject and s3:DeleteObject on its objects';

function noBucket(bucket: string): AppError {
  return new AppError(
    'NOT_FOUND',
    `The S3 bucket "${bucket}" does not exist.`,
    'Check the bucket name, and that the credentials in use belong to the account that owns it.',
    { reason: 's3-no-bucket', path: bucket },
  );
}

function isMissingBucket(e: unknown): boolean {
  const s = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return s?.name === 'NoSuchBucket' || (s?.name === 'NotFound' && s.$metadata?.httpStatusCode === 404);
}

export async function sdkS3Store(scope: AwsScope, region: string, env: NodeJS.ProcessEnv = process.env): Promise<S3Store> {
  const sdk: typeof S3Sdk = cjsExports(await import('@aws-sdk/client-s3'));
  const { getSignedUrl } = cjsExports(await import('@aws-sdk/s3-request-presigner'));
  const base = await sdkClientConfig(scope, region, 'other');
  // An S3-compatible endpoint (moto, MinIO, a proxy) serves buckets under its path, not as host names.
  const pathStyle = !!(env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL);
  // WHEN_REQUIRED: a presigned PUT must not carry the checksum of an empty body; sha256 is checked end to end instead.
  const make = (r: string): S3Client =>
    new sdk.S3Client({ ...base, region: r, forcePathStyle: pathStyle, followRegionRedirects: true, requestChecksumCalculation: 'WHEN_REQUIRED' });
  let current = region;
  let client = make(region);
  const call = async <T>(bucket: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      if (isMissingBucket(e)) throw noBucket(bucket);
      if ((e as { name?: string })?.name === 'AbortError') throw new AppError('CANCELLED', 'The copy through S3 was cancelled.');
      const err = sdkAppError(e, 'S3', current, `s3.${current}`, scope.profile);
      if (err.code !== 'ACCESS_DENIED') throw err;
      throw new AppError(err.code, `${err.message} (bucket "${bucket}"; a copy through S3 needs ${PERMISSIONS}).`, err.hint, err.details);
    }
  };
  const opts = (signal?: AbortSignal) => (signal ? { abortSignal: signal } : {});
  return {
    async checkBucket(bucket, signal) {
      const out = await call(bucket, () => client.send(new sdk.HeadBucketCommand({ Bucket: bucket }), opts(signal)));
      if (out.BucketRegion && out.BucketRegion !== current) {
        client.destroy();
        current = out.BucketRegion;
        client = make(current);
      }
    },
    async put(bucket, key, body, length, signal) {
      await call(bucket, () => client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: length }), opts(signal)));
    },
    async get(bucket, key, signal) {
      const out = await call(bucket, () => client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }), opts(signal)));
      return { body: out.Body as Readable, length: out.ContentLength };
    },
    presign(bucket, key, method, seconds) {
      const cmd = method === 'GET' ? new sdk.GetObjectCommand({ Bucket: bucket, Key: key }) : new sdk.PutObjectCommand({ Bucket: bucket, Key: key });
      return call(bucket, () => getSignedUrl(client, cmd, { expiresIn: seconds }));
    },
    async remove(bucket, key) {
      await call(bucket, () => client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: key })));
    },
    close: () => client.destroy(),
  };
}
