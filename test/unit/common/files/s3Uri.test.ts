import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseS3Uri, s3Label } from '../../../../src/common/files/s3Uri.js';

describe('parseS3Uri', () => {
  it('reads the bucket and a prefix that ends in /', () => {
    assert.deepEqual(parseS3Uri('s3://my-bucket'), { bucket: 'my-bucket', prefix: '' });
    assert.deepEqual(parseS3Uri('s3://my-bucket/'), { bucket: 'my-bucket', prefix: '' });
    assert.deepEqual(parseS3Uri('s3://my.bucket/a/b'), { bucket: 'my.bucket', prefix: 'a/b/' });
    assert.deepEqual(parseS3Uri('s3://b12/a/b/'), { bucket: 'b12', prefix: 'a/b/' });
    assert.equal(s3Label(parseS3Uri('s3://b12/x')), 'b12/x');
    assert.equal(s3Label(parseS3Uri('s3://b12')), 'b12');
    assert.equal(s3Label(parseS3Uri('s3://b12/x'), 'x/k'), 's3://b12/x/k');
  });

  it('refuses what is not an S3 location or not a bucket name', () => {
    for (const bad of ['my-bucket', 'https://my-bucket/x', 's3://', 's3:///x', 's3://My_Bucket', 's3://ab', 's3://a..b', `s3://${'a'.repeat(64)}`])
      assert.throws(
        () => parseS3Uri(bad),
        (e: { code?: string }) => e.code === 'INVALID_INPUT',
        bad,
      );
  });
});
