import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet, seedInstance } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { startEiceLab, type EiceLab } from '../../../lab/eiceServer.js';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import { runTagssh, type Run } from '../../../lab/run.js';

// `tagssh ssh` over the ssm transport, as a person runs it: the Name resolves in moto to an
// instance with no public address in a VPC with no EC2 Instance Connect Endpoint (the EICE lab
// answers DescribeInstanceConnectEndpoints, which moto lacks), and the lab's Session Manager
// (AWS_ENDPOINT_URL_SSM: DescribeInstanceInformation, StartSession and the data channel) carries
// the SSH session to a real sshd.

let dir: string;
let moto: Moto;
let eice: EiceLab;
let ssm: SsmLab;
let sshd: SshdHost;
let key: KeyPair;
let privId: string;
const SSHD_ADDR = '127.0.0.7';

function tagssh(args: string[], input?: string): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH, ...moto.env, ...eice.env, ...ssm.env, HOME: dir, TAGSSH_HOME: join(dir, 'home') }, input);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-ssm-ssh-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  [sshd, moto, ssm] = await Promise.all([startSshd({ address: SSHD_ADDR, authorizedKeys: [key.publicKey] }), startMoto(), startSsmLab()]);
  const ec2 = moto.sdk();
  const subnetId = await privateSubnet(ec2);
  const tags = { 'tagssh:user': sshd.user, 'tagssh:port': String(sshd.port) };
  privId = (await seedInstance(ec2, { name: 'priv', subnetId, imageId: 'ami-1e749f67', tags })).id;
  await seedInstance(ec2, { name: 'unmanaged', subnetId, imageId: 'ami-1e749f67', tags });
  ssm.nodes.set(privId, { sshHost: SSHD_ADDR });
  eice = await startEiceLab({ upstream: moto.endpoint, endpoints: [] });
});

after(async () => {
  await Promise.all([eice?.close(), ssm?.stop(), sshd?.stop(), moto?.stop()]);
  if (sshd) cleanupSshd(sshd);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('tagssh ssh over SSM', () => {
  it('--transport ssm: runs the command over a Session Manager port session and says so with -v', async () => {
    const r = await tagssh(['ssh', 'priv', '--transport', 'ssm', '-v', '-i', key.privatePath, '--accept-new', '--', 'echo', 'over-ssm']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'over-ssm\n');
    assert.match(r.stderr, /transport ssm/);
    const rec = ssm.sessions.at(-1)!;
    assert.equal(rec.instanceId, privId);
    assert.equal(rec.document, 'AWS-StartSSHSession');
    assert.equal(rec.portNumber, String(sshd.port));
  });

  it('auto: no public address and no endpoint, a managed node → ssm; stdin arrives intact (sha256sum on the instance)', async () => {
    const data = randomBytes(300_000).toString('base64');
    const r = await tagssh(['ssh', 'priv', '-v', '-i', key.privatePath, '--', 'sha256sum'], data);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /transport ssm \(auto/);
    assert.equal(r.stdout.split(' ')[0], createHash('sha256').update(data).digest('hex'));
  });

  it("the agent's CustomerMessage goes to stderr, escaped, as the plugin prints it; stdout stays the command's", async () => {
    ssm.nodes.set(privId, { sshHost: SSHD_ADDR, customerMessage: 'This session is encrypted using AWS KMS.\u001b[2J' });
    try {
      const r = await tagssh(['ssh', 'priv', '--transport', 'ssm', '-i', key.privatePath, '--', 'echo', 'after-notice']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'after-notice\n');
      assert.match(r.stderr, /This session is encrypted using AWS KMS\.\\x1b\[2J\r?\n/);
      assert.ok(!r.stderr.includes('\u001b[2J'), 'no raw escape reaches the terminal');
    } finally {
      ssm.nodes.set(privId, { sshHost: SSHD_ADDR });
    }
  });

  it('--transport ssm on an instance that is not a managed node: one line naming it', async () => {
    const r = await tagssh(['ssh', 'unmanaged', '--transport', 'ssm', '-i', key.privatePath, '--accept-new', '--', 'true']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /is not an SSM managed node/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });
});
