import { join } from 'node:path';
import type { AppErrorData } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';
import {
  detailsAs,
  detailsOf,
  FileErrorDetailsSchema,
  reasonDetailsOf,
  TagJumpRefusedDetailsSchema,
  type AuthFailedDetails,
  type DetailsFor,
  type Reason,
  type ReasonDetails,
} from '../../common/errorDetails.js';
import { tagJumpEntry } from '../../common/jumpTag.js';
import { transportDetailsOf } from '../../common/transportErrors.js';
import { serialConsoleDetailsOf } from '../../common/serialConsole/rules.js';
import type { UserSource } from '../../common/login.js';
import { TAG } from '../../common/vocab.js';
import { tagsshPaths } from '../store/paths.js';

// The CLI's words for the engine's errors: the engine says what went wrong (a code, a reason and
// the values it names); what to type next names this face's flags, so it is said here and only
// here. An error this file does not know keeps the engine's own message and hint.

interface CliWords {
  message: string;
  hint?: string;
}

/** Quotes a name for a copy-pasteable shell hint. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_.:/@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The hint (and, where the engine's message is not the CLI's, the message) for each reason. */
const REASON_WORDS: { [R in Reason]: (d: DetailsFor<R>) => { message?: string; hint?: string } } = {
  'sso-expired': (d) => ({ hint: `Run \`aws sso login --profile ${d.profile}\` and try again.` }),
  'no-such-profile': () => ({ hint: 'Check the name with `aws configure list-profiles`, or pass another --profile.' }),
  'no-credentials': () => ({ hint: 'Run `aws configure` (or `aws sso login`), set AWS_PROFILE, or pass --profile.' }),
  'credential-process-failed': (d) => ({
    hint: `Run the credential_process command of [profile ${d.profile}] in your AWS config yourself to see what it needs (often a fresh login to the tool it calls), then try again; or pass another --profile.`,
  }),
  'no-region': () => ({
    hint: 'Pass --region (e.g. --region eu-west-1 or --region all), set AWS_REGION, or add `region = …` to the profile in ~/.aws/config.',
  }),
  'no-enabled-regions': () => ({ hint: 'Pass --region explicitly.' }),
  'not-a-region': (d) => ({
    hint: d.meant.length
      ? `Regions are given by code: --region ${d.meant[0]}.`
      : 'Use region codes such as us-east-1,eu-west-2, or "all" for every enabled region (`aws ec2 describe-regions` lists them).',
  }),
  'one-region': (d) =>
    d.count === null
      ? { hint: 'Pass a single --region, e.g. --region us-east-1.' }
      : { message: `This command works in one region; --region names ${d.count}.`, hint: 'Pass a single --region.' },
  'unknown-region': () => ({ hint: 'Check --region (e.g. us-east-1) and your network/DNS.' }),
  'region-not-enabled': () => ({ hint: 'Enable it in the AWS console, or leave it out of --region.' }),
  'session-expired': (d) => {
    const login = `\`aws sso login --profile ${d.profile}\``;
    return {
      hint: d.clockUnsure
        ? `Check the clock (turn on automatic time synchronisation); if it is right, refresh the credentials (${login} for SSO) and try again.`
        : `Refresh them (${login} for SSO, or renew the session token) and try again.`,
    };
  },
  'credentials-rejected': () => ({ hint: 'Check the access key and secret for this profile, or choose another with --profile.' }),
  'aws-denied': (d) => ({
    hint:
      d.service === 'EC2'
        ? 'Ask for ec2:DescribeInstances (and ec2:StartInstances/StopInstances to start or stop) on this account, or use another --profile.'
        : 'Ask for the missing permission on this account, or use another --profile.',
  }),
  'aws-error': () => ({ hint: 'Check the request and try again; run with --debug for details.' }),
  'aws-request-failed': () => ({ hint: 'Try again; run with --debug for details.' }),
  'lacks-permission': (d) => ({ hint: `Ask for ${d.permission} on this account, or use another --profile.` }),
  'my-ip-lookup': (d) => ({
    hint:
      d.text === null
        ? `Give the address yourself (${d.addressFlag}), or name a service that answers with the address as plain text (--my-ip-url).`
        : `Give the address yourself (${d.addressFlag}), or name another lookup service (--my-ip-url or TAGSSH_MY_IP_URL).`,
  }),
  'no-such-name': (d) => ({
    hint: `Names are exact and case-sensitive; run \`tagssh list${d.manyRegions ? ' --region all' : ''}\` to see them${d.manyRegions ? '' : ', or try --region all'}.`,
  }),
  'pick-not-candidate': () => ({ hint: 'Pass one of the candidate ids to --pick, or run `tagssh list` to see them.' }),
  stopped: (d) => ({
    hint:
      d.candidates.length > 1
        ? `Start one with \`tagssh start ${shellWord(d.ref)} --pick ${d.candidates[0]!.id}\`, or add --start --pick <id>.`
        : `Start it with --start (waits until it answers), or \`tagssh start ${shellWord(d.ref)}\`.`,
  }),
  'no-public-ip': () => ({ hint: 'Use --private to get its private IP (over a VPN or through a jump host).' }),
  'nothing-to-export': () => ({ hint: 'Try --region all, or check --profile.' }),
  'export-no-names': () => ({ message: 'Name the instances to export, or pass --all.', hint: 'Example: tagssh export teraterm web-1 db-1' }),
  'export-no-such-name': () => ({ hint: 'Names are exact and case-sensitive; run `tagssh list` (or add --region all).' }),
  'port-tag': () => ({ hint: 'Fix the tag (1-65535) or pass --port.' }),
  'jump-loop': () => ({ hint: 'Check the tagssh:jump tags and the --via option.' }),
  'key-file': () => ({ hint: "Check the path given with --identity (or the settings' key file)." }),
  'handshake-timeout': () => ({ hint: 'Check that the address answers SSH (security group, network ACL, --port), or try --private/--via.' }),
  'ssh-refused': () => ({ hint: 'Is sshd running, and is the port right (--port or the tagssh:port tag)? Check the security group too.' }),
  'ssh-timeout': () => ({ hint: 'Check the security group (port 22 from your address), the network ACLs, or use --private/--via for a private subnet.' }),
  'ssh-unreachable': () => ({ hint: 'Check your network/VPN route to this address, or connect through a bastion with --via.' }),
  'ssh-failed': () => ({ hint: 'Try again; run with --debug for details.' }),
  'transport-both': () => ({ message: 'Give --eice or --ssm, not both.' }),
};

const WHO: Record<UserSource, string> = {
  flag: 'was given with --user',
  instance: "is this instance's own choice (the app's Connect as…)",
  tag: 'comes from the tagssh:user tag',
  settings: "comes from Settings' default login user",
  ami: 'was guessed from the AMI',
  default: 'is the default (nothing else named a user)',
};

/** What to change next; never the source that already chose the user. */
function userHint(d: AuthFailedDetails): string {
  const others = [
    d.userSource !== 'flag' ? '--user' : null,
    d.userSource !== 'tag' ? 'the tagssh:user tag' : null,
    d.userSource !== 'instance' ? "the app's Connect as…" : null,
  ].filter(Boolean);
  const who = d.userSource ? `"${d.user}" ${WHO[d.userSource]}; ` : '';
  return `${who}if another user logs in there, name it with ${others.join(', or ')}.`;
}

/**
 * A user guessed from the AMI is the likelier culprit when the server refuses (it cannot say
 * whether the user or the credential was wrong; "ec2-user" on an Ubuntu image is the classic
 * first connect), so the user leads and `ifRight` (what to check about the credential) follows.
 */
function guessedUserFirst(d: AuthFailedDetails, ifRight: string): string {
  return `"${d.user}" was guessed from the AMI; if another user logs in there, name it with --user, the tagssh:user tag, Settings' default login user, or the app's Connect as…. If "${d.user}" is right, ${ifRight}`;
}

/** A failed login's hint, the real cause first. */
function loginHint(d: AuthFailedDetails): string | undefined {
  const offer = d.instanceConnect === 'offer' ? ' Or log in once with a key pushed by EC2 Instance Connect: add --eic.' : '';
  const key = d.keyFile ?? '';
  const guessed = d.userSource === 'ami';
  switch (d.cause) {
    case undefined:
      return undefined;
    case 'instance-connect-refused':
      return `Use an AMI with EC2 Instance Connect (Amazon Linux 2/2023, Ubuntu 20.04+), install ec2-instance-connect on it, or check the login user: ${userHint(d)}`;
    case 'key-format':
      return d.ppk
        ? `Convert it to OpenSSH's format: puttygen ${key} -O private-openssh -o ${key.replace(/\.ppk$/i, '')}.pem, then use that file.${offer}`
        : `Give your private key file (OpenSSH, PEM or PuTTY .ppk) with --identity.${offer}`;
    case 'key-unreadable':
      return `Check the path given with --identity (or the settings' key file).${offer}`;
    case 'passphrase':
      return `Run it on a terminal to be asked for the passphrase, or load the key into ssh-agent (ssh-add ${key}).${offer}`;
    case 'refused':
      if (guessed)
        return `${guessedUserFirst(d, `the key was refused: check that its public key is in ~${d.user}/.ssh/authorized_keys there, or give another key with --identity (or ssh-add).`)}${offer}`;
      return `Check that its public key is in ~${d.user}/.ssh/authorized_keys there, or give another key with --identity (or ssh-add). ${userHint(d)}${offer}`;
    case 'password-refused':
      if (guessed) return `${guessedUserFirst(d, 'the password was refused: try again, or use a key (--identity, ssh-add).')}${offer}`;
      return `Try again, or use a key (--identity, ssh-add). ${userHint(d)}${offer}`;
    case 'nothing-to-offer':
      return `Give a key with --identity (or load one with ssh-add). ${userHint(d)}${offer}`;
  }
}

/** The host-key prompts' hints; a mismatch with a confirmed fingerprint keeps the engine's own. */
function hostKeyHint(err: AppErrorData): string | undefined {
  const d = detailsOf(err, 'HOST_KEY_UNKNOWN');
  if (!d) return err.hint;
  if (d.nameMoved)
    return `If the Name was moved on purpose, confirm this exact key with --accept-new=${d.fingerprint} (a plain --accept-new does not accept a moved Name).`;
  if (d.consoleMatch === false)
    return `Check the instance's system log in the EC2 console; only if you are sure, confirm this exact fingerprint with --accept-new=${d.fingerprint}.`;
  return err.hint ?? `Verify the fingerprint, then connect again with --accept-new (or --accept-new=${d.fingerprint}).`;
}

/** The words of errors whose details have a feature's shape (a transport's, a file's, a tag's). */
function featureHint(err: AppErrorData): string | undefined {
  const transport = transportDetailsOf(err);
  if (transport && 'missing' in transport && transport.missing === 'jump-host') return `Name one with --via, the ${TAG.jump} tag or the settings' jump host.`;
  if (transport && 'missing' in transport && transport.missing === 'transport')
    return 'Add a jump host (--via or the tagssh:jump tag), an EC2 Instance Connect Endpoint in its VPC, or the SSM Agent; or use --private over a VPN.';
  const serial = serialConsoleDetailsOf(err);
  if (serial?.serialConsole === 'access-denied')
    return `Ask for ${serial.permission ?? ''} (the serial console needs ec2:GetSerialConsoleAccessStatus, ec2:DescribeInstanceTypes and ec2-instance-connect:SendSerialConsoleSSHPublicKey), or use another --profile.`;
  if (err.code === 'REMOTE_FAILED' && detailsAs(err, FileErrorDetailsSchema)?.reason === 'permission')
    return 'Log in as a user who may access it (--user), or choose another remote directory.';
  const jump = err.code === 'INVALID_INPUT' ? detailsAs(err, TagJumpRefusedDetailsSchema) : undefined;
  if (jump?.spec) {
    const settingsFile = join(tagsshPaths().config, 'settings.json');
    return `Name a bastion instance in the tag (its Name or id), or pass --via ${jump.spec} to use it this once; to trust it for tags, add "${tagJumpEntry(jump.host, jump.port)}" to "tagJumpHosts" in ${settingsFile} (the app: Settings › Bastions tags may name).`;
  }
  return undefined;
}

/** An error as the CLI says it: its message, and what to type next in the CLI's own flags. */
export function cliWords(err: AppErrorData): CliWords {
  const reason = reasonDetailsOf(err);
  if (reason) {
    const w = (REASON_WORDS[reason.reason] as (d: ReasonDetails) => { message?: string; hint?: string })(reason);
    const out: CliWords = { message: w.message ?? err.message };
    const hint = w.hint ?? err.hint;
    if (hint !== undefined) out.hint = hint;
    return out;
  }
  let hint: string | undefined;
  if (err.code === 'AUTH_FAILED') hint = loginHint(detailsOf(err, 'AUTH_FAILED') ?? { user: '', tried: [] }) ?? err.hint;
  else if (err.code === 'HOST_KEY_UNKNOWN') hint = hostKeyHint(err);
  else if (err.code === 'AMBIGUOUS' && !err.hint) {
    const first = detailsOf(err, 'AMBIGUOUS')?.candidates[0]?.id ?? 'i-…';
    hint = `Choose one with --pick ${first} (or use the instance id instead of the name).`;
  } else if (err.code === 'NOT_FOUND' && detailsOf(err, 'NOT_FOUND'))
    hint = 'Connect to its private address through a jump host (--via HOST, or --private over a VPN).';
  else hint = featureHint(err) ?? err.hint;
  return hint === undefined ? { message: err.message } : { message: err.message, hint };
}

/** An error as `--json` prints it: the engine's data in the CLI's words. */
export function cliErrorJson(err: AppErrorData): AppErrorData {
  const w = cliWords(err);
  const out: AppErrorData = { code: err.code, message: w.message };
  if (w.hint !== undefined) out.hint = w.hint;
  if (err.details !== undefined) out.details = err.details;
  return out;
}

/**
 * An error in a list of results or a progress report (its code may be a remote one): its message,
 * then `then` (the caller's own sentence, e.g. what happens next), then its hint on the next line;
 * the error's text escaped, the caller's not.
 */
export function errorLines(err: { code: string; message: string; hint?: string; details?: unknown }, then = ''): string {
  const w = cliWords(err as AppErrorData);
  return `${escapeControls(w.message)}${then}${w.hint ? `\n  → ${escapeControls(w.hint)}` : ''}`;
}
