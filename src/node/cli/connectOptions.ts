import { InvalidArgumentError, type Command } from 'commander';
import type { TargetOptions } from '../ssh/target.js';
import { isTransportChoice, TRANSPORT_CHOICES, type TransportChoice } from '../../common/model/transport.js';
import { escapeControls } from '../../common/safeText.js';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from './options.js';
import { collect, parsePort } from './flags.js';

// The connection options shared by every command that opens SSH sessions (`ssh`, `bench`):
// same names, same meaning, same validation.

export interface ConnectFlags extends AwsFlags {
  user?: string;
  identity?: string;
  port?: number;
  via?: string[];
  private?: boolean;
  acceptNew?: boolean | string;
  start?: boolean;
  transport?: TransportChoice;
  verbose?: boolean;
  eic?: boolean;
  agentForward?: boolean;
}

function parseTransportFlag(v: string): TransportChoice {
  if (isTransportChoice(v)) return v;
  throw new InvalidArgumentError(`expected one of ${TRANSPORT_CHOICES.join(', ')}`);
}

/** Where --accept-new goes so that it takes no fingerprint, in the words of `tagssh ssh`. */
const SSH_ACCEPT_NEW_PLACE = 'put `--` before a remote command';

/**
 * --accept-new's optional value. A word that is not a fingerprint is most often the next
 * argument the flag swallowed; `place` says where the flag goes instead, in the command's terms.
 */
function fingerprintFlagParser(place: string = SSH_ACCEPT_NEW_PLACE): (v: string) => string {
  return (v) => {
    if (/^(SHA256:[A-Za-z0-9+/]{20,}=*|(MD5:)?[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){15})$/.test(v)) return v;
    throw new InvalidArgumentError(`expected a host-key fingerprint such as SHA256:…; ${place}`);
  };
}

/**
 * Adds --user, --identity, --port, --via, --private, --accept-new, --start and the AWS options.
 * `portShort`: the short flag of --port ('-P' where -p means something else, as in scp).
 * `acceptNewPlace`: where --accept-new goes to take no fingerprint (default: `tagssh ssh`'s words).
 */
export function addConnectOptions<C extends Command>(cmd: C, opts: { portShort?: '-p' | '-P'; acceptNewPlace?: string } = {}): C {
  cmd
    .option(
      '-u, --user <user>',
      'login user (default: the instance\'s "Connect as…" in the app, else tag tagssh:user, else Settings\' default user, else from the AMI family, else ec2-user)',
    )
    .option(
      '-i, --identity <file>',
      'private key file, OpenSSH, PEM or PuTTY .ppk (default: "Connect as…", then ~/.ssh/<KeyName>.pem or ~/.ssh/<KeyName>, then settings, then ~/.ssh/id_*)',
    )
    .option(`${opts.portShort ?? '-p'}, --port <port>`, 'SSH port (default: "Connect as…", else tag tagssh:port, else settings, else 22)', (v) => parsePort(v))
    .option('-A, --agent-forward', 'forward your ssh-agent to the instance, as ssh -A (only to hosts you trust; default: Settings)')
    .option('--via <bastion>', 'jump host: instance Name/id or [user@]host[:port]; repeat or comma-separate for several hops', collect)
    .option('--private', 'connect to the private IP (implied when a jump host is used)')
    .option(
      '--transport <how>',
      `how to reach the instance: ${TRANSPORT_CHOICES.join('|')} (default: tag tagssh:transport, else settings, else auto: jump host if one is configured, else public address, else EC2 Instance Connect Endpoint, else SSM)`,
      parseTransportFlag,
    )
    .option('-v, --verbose', 'say how the connection is made (the transport and why, which rule chose the login user, and the cipher)')
    .option(
      '--eic',
      'log in with a fresh key pushed through EC2 Instance Connect (valid 60 s, never stored); without it, a refused login asks first on a terminal',
    )
    .option(
      '--accept-new [fingerprint]',
      'trust a first-seen host key (or only this exact fingerprint); a CHANGED key is never accepted',
      fingerprintFlagParser(opts.acceptNewPlace),
    )
    .option('--start', 'if the instance is stopped, start it and wait until SSH answers');
  return addAwsOptions(cmd);
}

/** The connectTargetFor() options these flags ask for (absent flags left out). */
export function targetOptionsFrom(flags: ConnectFlags & { pick?: string }): TargetOptions {
  return {
    ...awsScopeFrom(flags),
    ...(flags.user ? { user: flags.user } : {}),
    ...(flags.identity ? { identity: flags.identity } : {}),
    ...(flags.port ? { port: flags.port } : {}),
    ...(flags.via?.length ? { via: flags.via } : {}),
    ...(flags.private ? { private: true } : {}),
    ...(flags.start ? { start: true } : {}),
    ...(flags.pick ? { pick: flags.pick } : {}),
    ...(flags.acceptNew !== undefined ? { acceptNew: flags.acceptNew } : {}),
    ...(flags.transport ? { transport: flags.transport } : {}),
    ...(flags.eic ? { eic: true } : {}),
    ...(flags.agentForward ? { agentForward: true } : {}),
    ...(flags.verbose ? { onTransport: (d) => process.stderr.write(`tagssh: transport ${d.name} (${escapeControls(d.why)})\n`) } : {}),
  };
}
