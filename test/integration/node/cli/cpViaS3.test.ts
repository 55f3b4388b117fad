import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Moto } from '../../../lab/moto.js';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { privateSubnet, seedInstance, sshdTags } from '../../../lab/seed.js';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import { freePort } from '../../../lab/ports.js';
import type { SshdHost } from '../../../lab/sshd.js';
import { runTagssh, type Run } from '../../../lab/run.js';

// `tagssh cp --via-s3` end to end: moto serves S3 on the same endpoint as EC2; the "instance" is a
// lab sshd on this machine, whose curl fetches from (and sends to) moto with the presigned URLs.
// A second address of the same sshd runs every command with a PATH that has no curl.

let lab: CliLab;
let moto: Moto;
let host: SshdHost;
let home: string;
let s3: S3Client;
let bare: string;
let ssm: SsmLab;
let n = 0;
const BUCKET = 'tagssh-xfer';
const ODD = `it's "odd" $(touch PWNED) sp ace.bin`;

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const fresh = (name: string) => {
  const d = join(home, 'work', `${name}-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
};
const env = () => ({ PATH: process.env.PATH, ...moto.env, ...ssm.env, AWS_ENDPOINT_URL_S3: moto.endpoint, HOME: home, TAGSSH_HOME: join(home, 'tagssh') });
const tagssh = (args: string[]): Promise<Run> => runTagssh(args, env());
const objects = async () => (await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? [];

before(async () => {
  // The tools the copy needs there, but curl.
  bare = mkdtempSync(join(tmpdir(), 'tagssh-bare-bin-'));
  for (const tool of ['sh', 'sha256sum', 'wc', 'tr', 'rm', 'mv', 'cat', 'env']) symlinkSync(`/usr/bin/${tool}`, join(bare, tool));
  const port = await freePort('127.0.0.93');
  lab = await startCliLab({
    prefix: 'tagssh-cli-cps3-',
    keyName: 'team-key',
    sshd: {
      address: '127.0.0.93',
      port,
      extraConfig: [
        `ListenAddress 127.0.0.94:${port}`,
        'Match LocalAddress 127.0.0.94',
        `  ForceCommand /usr/bin/env PATH=${bare} /bin/sh -c "$SSH_ORIGINAL_COMMAND"`,
      ],
    },
  });
  ({ home, moto, host } = lab);
  s3 = new S3Client({
    region: 'us-east-1',
    endpoint: moto.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  const tags = sshdTags(host);
  await seedInstance(lab.ec2, { name: 'files', eip: '127.0.0.93', keyName: 'team-key', tags });
  await seedInstance(lab.ec2, { name: 'bare', eip: '127.0.0.94', keyName: 'team-key', tags });
  // An instance with no address this machine reaches: only a Session Manager session gets to its sshd.
  ssm = await startSsmLab();
  const hidden = await seedInstance(lab.ec2, { name: 'hidden', subnetId: await privateSubnet(lab.ec2), keyName: 'team-key', tags });
  ssm.nodes.set(hidden.id, { sshHost: '127.0.0.93' });
  assert.equal((await tagssh(['ssh', 'hidden', '--transport', 'ssm', '--accept-new', '--', 'true'])).code, 0);
  assert.equal((await tagssh(['ssh', 'files', '--accept-new', '--', 'true'])).code, 0);
  assert.equal((await tagssh(['ssh', 'bare', '--accept-new', '--', 'true'])).code, 0);
});

after(async () => {
  s3?.destroy();
  await ssm?.stop();
  await lab?.stop();
  if (bare) rmSync(bare, { recursive: true, force: true });
});

describe('tagssh cp --via-s3', () => {
  it('uploads and downloads a few MiB through S3 with the same SHA-256, names the route, and leaves no object', async () => {
    const local = fresh('local');
    writeFileSync(join(local, 'a.bin'), randomBytes(5 * 1024 * 1024 + 17));
    const remote = fresh('remote');
    const up = await tagssh(['cp', '--via-s3', `s3://${BUCKET}/stage`, '--progress', '-v', join(local, 'a.bin'), `files:${remote}/`]);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stderr, /100%.*via S3 tagssh-xfer\/stage/);
    assert.doesNotMatch(up.stderr, /X-Amz|https?:\/\//, 'no presigned URL is printed');
    assert.equal(sha(join(remote, 'a.bin')), sha(join(local, 'a.bin')));
    assert.deepEqual(await objects(), []);

    const down = fresh('down');
    const back = await tagssh(['cp', `files:${remote}/a.bin`, join(down, 'back.bin'), '--via-s3', `s3://${BUCKET}`]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(back.stderr, '', 'no progress when stderr is not a terminal');
    assert.equal(sha(join(down, 'back.bin')), sha(join(local, 'a.bin')));
    assert.deepEqual(await objects(), []);
  });

  it('through an SSM session: only commands cross it, the bytes go through S3', async () => {
    const local = fresh('local');
    writeFileSync(join(local, 'big.bin'), randomBytes(3 * 1024 * 1024));
    const remote = fresh('remote');
    const sessions = ssm.sessions.length;
    const up = await tagssh(['cp', '--transport', 'ssm', '--via-s3', `s3://${BUCKET}/ssm`, '--progress', join(local, 'big.bin'), `hidden:${remote}/`]);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stderr, /100%.*via S3 tagssh-xfer\/ssm/);
    assert.equal(sha(join(remote, 'big.bin')), sha(join(local, 'big.bin')));
    const back = await tagssh(['cp', '--transport', 'ssm', '--via-s3', `s3://${BUCKET}/ssm`, `hidden:${remote}/big.bin`, join(fresh('down'), 'b.bin')]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(ssm.sessions.length, sessions + 2, 'one session per copy');
    assert.deepEqual(await objects(), []);
  });

  it('copies a file whose name has spaces, quotes and $() both ways, running nothing it names', async () => {
    const local = fresh('local');
    writeFileSync(join(local, ODD), randomBytes(300_000));
    const remote = fresh('remote');
    const up = await tagssh(['cp', '--via-s3', `s3://${BUCKET}/odd/`, join(local, ODD), `files:${remote}`]);
    assert.equal(up.code, 0, up.stderr);
    assert.equal(sha(join(remote, ODD)), sha(join(local, ODD)));
    const down = fresh('down');
    const back = await tagssh(['cp', '--via-s3', `s3://${BUCKET}/odd/`, `files:${remote}/${ODD}`, down]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(sha(join(down, ODD)), sha(join(local, ODD)));
    assert.ok(!existsSync(join(host.dir, 'home', 'PWNED')) && !existsSync(join(remote, 'PWNED')));
    assert.deepEqual(await objects(), []);
  });

  it('copies several files into a directory, and refuses to put several into one file name', async () => {
    const local = fresh('local');
    writeFileSync(join(local, 'one'), '1');
    writeFileSync(join(local, 'two'), '22');
    const remote = fresh('remote');
    const r = await tagssh(['cp', '--via-s3', `s3://${BUCKET}`, join(local, 'one'), join(local, 'two'), `files:${remote}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(remote, 'one'), 'utf8'), '1');
    assert.equal(readFileSync(join(remote, 'two'), 'utf8'), '22');
    const notDir = await tagssh(['cp', '--via-s3', `s3://${BUCKET}`, join(local, 'one'), join(local, 'two'), `files:${remote}/one-file`]);
    assert.equal(notDir.code, 1, notDir.stderr);
    assert.ok(!existsSync(join(remote, 'one-file')));
    assert.deepEqual(await objects(), []);
  });

  it('refuses wrong inputs with a clear error and cp’s exit codes, and leaves nothing behind', async () => {
    const local = fresh('local');
    writeFileSync(join(local, 'f'), 'x');
    const remote = fresh('remote');
    const via = (uri: string, ...args: string[]) => tagssh(['cp', '--via-s3', uri, ...args]);

    const noScheme = await via(BUCKET, join(local, 'f'), `files:${remote}/`);
    assert.equal(noScheme.code, 2);
    assert.match(noScheme.stderr, /is not an S3 location: write it as s3:\/\/BUCKET/);
    const noBucket = await via('s3://', join(local, 'f'), `files:${remote}/`);
    assert.equal(noBucket.code, 2);
    assert.match(noBucket.stderr, /names no bucket/);
    const recursive = await tagssh(['cp', '-r', '--via-s3', `s3://${BUCKET}`, local, `files:${remote}/`]);
    assert.equal(recursive.code, 2);
    assert.match(recursive.stderr, /--via-s3 copies single files: -r is not supported/);
    const bothLocal = await via(`s3://${BUCKET}`, join(local, 'f'), join(local, 'g'));
    assert.equal(bothLocal.code, 2);
    assert.match(bothLocal.stderr, /Neither side is on an instance/);
    const bothRemote = await via(`s3://${BUCKET}`, `files:${remote}/f`, `bare:${remote}/g`);
    assert.equal(bothRemote.code, 2);
    assert.match(bothRemote.stderr, /between two instances/);

    const missing = await via('s3://no-such-bucket-here/x', join(local, 'f'), `files:${remote}/`);
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /^tagssh: The S3 bucket "no-such-bucket-here" does not exist\.\n {2}→ Check the bucket in --via-s3/);

    const noCurl = await via(`s3://${BUCKET}`, join(local, 'f'), `bare:${remote}/f`);
    assert.equal(noCurl.code, 1, noCurl.stderr);
    assert.match(noCurl.stderr, /has no curl: a copy through S3 needs curl and sha256sum[\s\S]*→ Install curl there/);
    assert.ok(!existsSync(join(remote, 'f')));

    const absent = await via(`s3://${BUCKET}`, `files:${remote}/absent`, local);
    assert.equal(absent.code, 1, absent.stderr);
    assert.match(absent.stderr, /files:.*\/absent does not exist/);
    const noDir = await via(`s3://${BUCKET}`, join(local, 'f'), `files:${remote}/nowhere/f`);
    assert.equal(noDir.code, 1, noDir.stderr);
    assert.match(noDir.stderr, /directory for files:.*nowhere\/f does not exist/);
    assert.deepEqual(await objects(), []);
  });
});
