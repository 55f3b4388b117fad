import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../../src/common/errors.js';
import { detailsOf } from '../../../../src/common/errorDetails.js';
import { portTag } from '../../../../src/common/vocab.js';
import { cliErrorJson, cliWords, errorLines } from '../../../../src/node/cli/errorWords.js';
import { credentialError } from '../../../../src/node/aws/config/credentials.js';
import { badRegion } from '../../../../src/node/aws/config/scope.js';
import { sdkAppError, singleRegion } from '../../../../src/node/aws/config/sdkClients.js';
import { ec2AppError, type Ec2Failure } from '../../../../src/node/aws/ec2/ec2Errors.js';
import { ambiguous, applyPick, notFound } from '../../../../src/node/aws/instances/lookup.js';
import { noPublicAddressError } from '../../../../src/node/aws/instances/publicAddress.js';
import { targetOf } from '../../../../src/node/aws/instances/resolve.js';
import { connectError } from '../../../../src/node/ssh/errors.js';
import { hopsOf } from '../../../../src/node/ssh/connection.js';
import { loginFailedError } from '../../../../src/node/ssh/authHandler.js';
import { selectInstances } from '../../../../src/node/export/select.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { instanceOf } from '../../../support/instance.js';

// The CLI's words for the engine's errors: built by the engine's own functions (which now carry a
// reason and its values, no flags), worded by src/node/cli/errorWords.ts exactly as the CLI said
// them before, byte for byte, flags included.

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('nothing thrown');
}

async function rejected(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('nothing thrown');
}

const failure = (over: Partial<Ec2Failure>): Ec2Failure => ({ message: 'x', region: 'eu-west-1', endpoint: 'https://ec2.eu-west-1.amazonaws.com', ...over });
const web = instanceOf({ id: 'i-0aaa', name: 'web-1', state: 'stopped' });
const web2 = instanceOf({ id: 'i-0bbb', name: 'web-1', state: 'stopped' });

/** [what, the engine's error, the CLI's message, the CLI's hint]. */
const CASES: Array<[string, AppError, string, string | undefined]> = [
  [
    'SSO expired',
    credentialError(new Error('The SSO session token has expired'), 'dev'),
    'The SSO session for profile "dev" has expired or was never started.',
    'Run `aws sso login --profile dev` and try again.',
  ],
  [
    'no such profile',
    credentialError(new Error('Profile dev could not be found'), 'dev'),
    'AWS profile "dev" does not exist.',
    'Check the name with `aws configure list-profiles`, or pass another --profile.',
  ],
  [
    'no credentials',
    credentialError(new Error('Could not load credentials from any providers'), undefined),
    'No AWS credentials found.',
    'Run `aws configure` (or `aws sso login`), set AWS_PROFILE, or pass --profile.',
  ],
  [
    'not a region, with a guess',
    badRegion('tokyo'),
    '"tokyo" is not an AWS region. Did you mean ap-northeast-1?',
    'Regions are given by code: --region ap-northeast-1.',
  ],
  [
    'not a region',
    badRegion('nowhere-9'),
    '"nowhere-9" is not an AWS region.',
    'Use region codes such as us-east-1,eu-west-2, or "all" for every enabled region (`aws ec2 describe-regions` lists them).',
  ],
  [
    'unknown region',
    ec2AppError(failure({ netCode: 'ENOTFOUND', region: 'xx-nowhere-1', endpoint: 'https://ec2.xx-nowhere-1.amazonaws.com' })),
    'Cannot resolve https://ec2.xx-nowhere-1.amazonaws.com: is "xx-nowhere-1" a real region?',
    'Check --region (e.g. us-east-1) and your network/DNS.',
  ],
  [
    'region not enabled',
    ec2AppError(failure({ code: 'OptInRequired' })),
    'Region eu-west-1 is not enabled for this account.',
    'Enable it in the AWS console, or leave it out of --region.',
  ],
  [
    'session expired',
    ec2AppError(failure({ code: 'ExpiredToken', profile: 'dev' })),
    'Your AWS session credentials have expired (ExpiredToken).',
    'Refresh them (`aws sso login --profile dev` for SSO, or renew the session token) and try again.',
  ],
  [
    'session expired or the clock',
    ec2AppError(failure({ code: 'RequestExpired', profile: 'dev' })),
    "EC2 refused the request as expired (RequestExpired): the session credentials have expired, or this computer's clock is off.",
    'Check the clock (turn on automatic time synchronisation); if it is right, refresh the credentials (`aws sso login --profile dev` for SSO) and try again.',
  ],
  [
    'credentials rejected',
    ec2AppError(failure({ code: 'AuthFailure' })),
    'AWS rejected the credentials (AuthFailure).',
    'Check the access key and secret for this profile, or choose another with --profile.',
  ],
  [
    'EC2 denied',
    ec2AppError(failure({ code: 'UnauthorizedOperation', message: 'You are not authorized.' })),
    'Access denied in eu-west-1: You are not authorized.',
    'Ask for ec2:DescribeInstances (and ec2:StartInstances/StopInstances to start or stop) on this account, or use another --profile.',
  ],
  [
    'EC2 error',
    ec2AppError(failure({ code: 'Odd', message: 'odd.' })),
    'EC2 error in eu-west-1: Odd: odd.',
    'Check the request and try again; run with --debug for details.',
  ],
  [
    'EC2 request failed',
    ec2AppError(failure({ message: 'socket hang up' })),
    'EC2 request failed in eu-west-1: socket hang up',
    'Try again; run with --debug for details.',
  ],
  [
    'another service denied',
    sdkAppError(
      Object.assign(new Error('no'), { name: 'AccessDeniedException', $fault: 'client' }),
      'SSM',
      'eu-west-1',
      'https://ssm.eu-west-1.amazonaws.com',
      undefined,
    ),
    'SSM denied access in eu-west-1: no',
    'Ask for the missing permission on this account, or use another --profile.',
  ],
  [
    'no such Name',
    notFound('web-9', {}, ['eu-west-1']),
    'No instance named "web-9" in eu-west-1.',
    'Names are exact and case-sensitive; run `tagssh list` to see them, or try --region all.',
  ],
  [
    'no such Name in many regions',
    notFound('web-9', {}, ['a', 'b', 'c', 'd']),
    'No instance named "web-9" in 4 regions.',
    'Names are exact and case-sensitive; run `tagssh list --region all` to see them.',
  ],
  [
    'a pick that is not a candidate',
    thrown(() => applyPick('web-1', [web, web2], 'i-0ccc')),
    'i-0ccc is not an instance named "web-1" (candidates: i-0aaa, i-0bbb).',
    'Pass one of the candidate ids to --pick, or run `tagssh list` to see them.',
  ],
  [
    'ambiguous',
    ambiguous('web-1', [web, web2], 'stopped'),
    ambiguous('web-1', [web, web2], 'stopped').message,
    'Choose one with --pick i-0aaa (or use the instance id instead of the name).',
  ],
  [
    'no public address (a start would give none)',
    noPublicAddressError(instanceOf({ subnetId: 'subnet-1' }), 'subnet'),
    'web-1 (i-0001) will get no public IP address: it has no Elastic IP and its subnet subnet-1 does not assign public addresses.',
    'Connect to its private address through a jump host (--via HOST, or --private over a VPN).',
  ],
  [
    'no public IP',
    thrown(() => targetOf(instanceOf({ state: 'running' }), {})),
    `${thrown(() => targetOf(instanceOf({ state: 'running' }), {})).message}`,
    'Use --private to get its private IP (over a VPN or through a jump host).',
  ],
  ['port tag', thrown(() => portTag({ 'tagssh:port': 'ssh' })), 'The tagssh:port tag "ssh" is not a port number.', 'Fix the tag (1-65535) or pass --port.'],
  [
    'connection refused',
    connectError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), { label: 'web-1', host: '10.0.0.1', port: 2222 }),
    'Connection refused by web-1 (10.0.0.1:2222): nothing accepts SSH on port 2222.',
    'Is sshd running, and is the port right (--port or the tagssh:port tag)? Check the security group too.',
  ],
  [
    'connect timeout',
    connectError(Object.assign(new Error('x'), { code: 'ETIMEDOUT' }), { label: 'web-1', host: '10.0.0.1', port: 22 }),
    'Timed out connecting to web-1 (10.0.0.1:22).',
    'Check the security group (port 22 from your address), the network ACLs, or use --private/--via for a private subnet.',
  ],
  [
    'unreachable',
    connectError(Object.assign(new Error('x'), { code: 'EHOSTUNREACH' }), { label: 'web-1', host: '10.0.0.1', port: 22 }, 'bastion'),
    'web-1 (10.0.0.1:22) via bastion is unreachable (EHOSTUNREACH).',
    'Check your network/VPN route to this address, or connect through a bastion with --via.',
  ],
  [
    'another SSH failure',
    connectError(new Error('boom'), { label: 'web-1', host: '10.0.0.1', port: 22 }),
    'SSH connection to web-1 (10.0.0.1:22) failed: boom.',
    'Try again; run with --debug for details.',
  ],
  ['nothing to export', thrown(() => selectInstances([], [], true)), 'No instances to export in this profile/region.', 'Try --region all, or check --profile.'],
  [
    'no names to export',
    thrown(() => selectInstances([], [], false)),
    'Name the instances to export, or pass --all.',
    'Example: tagssh export teraterm web-1 db-1',
  ],
  [
    'no such Name to export',
    thrown(() => selectInstances([web], ['zzz'], false)),
    'No instance named "zzz".',
    'Names are exact and case-sensitive; run `tagssh list` (or add --region all).',
  ],
];

describe('the CLI’s words for the engine’s errors', () => {
  for (const [what, err, message, hint] of CASES) {
    it(`${what}: the message and hint as before, flags included`, () => {
      assert.equal(err.hint, undefined, 'the engine names no hint of the CLI’s');
      assert.deepEqual(cliWords(err.toJSON()), hint === undefined ? { message } : { message, hint });
    });
  }

  it('one region: "all" and several regions are worded with --region', async () => {
    const all = await rejected(singleRegion({ regions: ['all'] }));
    assert.deepEqual(cliWords(all), { message: 'This command works in one region, not "all".', hint: 'Pass a single --region, e.g. --region us-east-1.' });
    const two = await rejected(singleRegion({ regions: ['eu-west-1', 'us-east-1'] }));
    assert.doesNotMatch(two.message, /--/);
    assert.deepEqual(cliWords(two), { message: 'This command works in one region; --region names 2.', hint: 'Pass a single --region.' });
  });

  it('a jump loop names the tags and --via', () => {
    let t: ConnectTarget = { host: 'h', port: 22, user: 'u', label: 'target' } as ConnectTarget;
    for (let i = 0; i < 10; i++) t = { ...t, jump: [{ ...t, label: `hop${i}` }] };
    const err = thrown(() => hopsOf(t));
    assert.equal(cliWords(err).hint, 'Check the tagssh:jump tags and the --via option.');
  });

  it('a refused login: the hint names --identity, the user’s source and --eic when it is offered', () => {
    const err = loginFailedError(
      { user: 'ec2-user', userSource: 'settings', label: 'web-1', instanceConnectOffer: true },
      { attempts: [{ text: '~/.ssh/id_ed25519', method: 'key', path: '~/.ssh/id_ed25519', outcome: 'refused' }], pushed: false, declined: false },
    );
    assert.equal(err.hint, undefined);
    assert.equal(
      cliWords(err).hint,
      'Check that its public key is in ~ec2-user/.ssh/authorized_keys there, or give another key with --identity (or ssh-add). "ec2-user" comes from Settings\' default login user; if another user logs in there, name it with --user, or the tagssh:user tag, or the app\'s Connect as…. Or log in once with a key pushed by EC2 Instance Connect: add --eic.',
    );
  });

  it('a refused login as a user guessed from the AMI leads with the user and where to name another, then the key or password', () => {
    const tried = (outcome: 'refused', method: 'key' | 'password') =>
      method === 'key'
        ? { attempts: [{ text: '~/.ssh/team.pem', method, path: '~/.ssh/team.pem', outcome }], pushed: false, declined: false }
        : { attempts: [{ text: 'password', method, outcome }], pushed: false, declined: false };
    const key = loginFailedError({ user: 'ec2-user', userSource: 'ami', label: 'web-1', instanceConnectOffer: true }, tried('refused', 'key'));
    assert.equal(detailsOf(key.toJSON(), 'AUTH_FAILED')?.cause, 'refused');
    assert.equal(
      cliWords(key).hint,
      '"ec2-user" was guessed from the AMI; if another user logs in there, name it with --user, the tagssh:user tag, Settings\' default login user, or the app\'s Connect as…. If "ec2-user" is right, the key was refused: check that its public key is in ~ec2-user/.ssh/authorized_keys there, or give another key with --identity (or ssh-add). Or log in once with a key pushed by EC2 Instance Connect: add --eic.',
    );
    const password = loginFailedError({ user: 'ec2-user', userSource: 'ami', label: 'web-1' }, tried('refused', 'password'));
    assert.equal(detailsOf(password.toJSON(), 'AUTH_FAILED')?.cause, 'password-refused');
    const hint = cliWords(password).hint ?? '';
    assert.ok(hint.startsWith('"ec2-user" was guessed from the AMI; '), hint);
    assert.ok(hint.indexOf("Settings' default login user") < hint.indexOf('the password was refused: try again, or use a key (--identity, ssh-add).'), hint);
    // Nothing offered: no user logs in without a key, so the key still leads.
    const none = loginFailedError({ user: 'ec2-user', userSource: 'ami', label: 'web-1' }, { attempts: [], pushed: false, declined: false });
    assert.equal(
      cliWords(none).hint,
      'Give a key with --identity (or load one with ssh-add). "ec2-user" was guessed from the AMI; if another user logs in there, name it with --user, or the tagssh:user tag, or the app\'s Connect as….',
    );
  });

  it('an unknown reason or code keeps the engine’s own words; --json and result lists carry the CLI’s', () => {
    const other = new AppError('INTERNAL', 'odd', 'report it');
    assert.deepEqual(cliWords(other), { message: 'odd', hint: 'report it' });
    assert.deepEqual(cliErrorJson(badRegion('tokyo').toJSON()), {
      code: 'BAD_REGION',
      message: '"tokyo" is not an AWS region. Did you mean ap-northeast-1?',
      hint: 'Regions are given by code: --region ap-northeast-1.',
      details: { reason: 'not-a-region', region: 'tokyo', meant: ['ap-northeast-1'] },
    });
    assert.equal(
      errorLines(
        new AppError('NOT_FOUND', 'No instance named \x1b[31mx.', undefined, {
          reason: 'no-such-name',
          ref: 'x',
          suggestions: [],
          manyRegions: true,
          regions: ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
        }),
      ),
      'No instance named \\x1b[31mx.\n  → Names are exact and case-sensitive; run `tagssh list --region all` to see them.',
    );
  });

  it('a sentence of the caller’s goes between the message and the hint line, unescaped; no hint, no hint line', () => {
    const expired = new AppError('CREDENTIALS_EXPIRED', 'The session for profile "dev\x07" has expired.', undefined, {
      reason: 'session-expired',
      awsCode: 'ExpiredToken',
      profile: 'dev',
      clockUnsure: false,
    });
    assert.equal(
      errorLines(expired, ' Trying again (next in 5.0 s).'),
      'The session for profile "dev\\x07" has expired. Trying again (next in 5.0 s).\n  → Refresh them (`aws sso login --profile dev` for SSO, or renew the session token) and try again.',
    );
    assert.equal(errorLines(new AppError('INTERNAL', 'odd\x1b'), ' Next.'), 'odd\\x1b Next.');
  });
});
