import type { Instance } from '../../../common/model/instance.js';
import { AppError } from '../../../common/errors.js';
import type { DetailsFor } from '../../../common/errorDetails.js';
import { describeOne, label, startAndWait } from './lifecycle.js';
import { ambiguous, applyPick, candidatesOf, describeCandidate, displayName, findInstances, notFoundWithSuggestions } from './lookup.js';
import { assertPublicAddressComes, noPublicAddressError } from './publicAddress.js';
import { tcpAnswers } from './tcpProbe.js';
import { portTag } from '../../../common/vocab.js';
import { pollUntil, waitOptionsFrom } from './wait.js';
import type { ResolveOptions } from './resolveOptions.js';

// Name tag → address: the heart of TagSSH. Always answered from EC2 itself (never the inventory
// cache), so an address is only returned for an instance EC2 reports running right now.

interface ResolvedTarget {
  instance: Instance;
  address: string;
  addressKind: 'eip' | 'public' | 'private';
}

export async function resolveTarget(nameOrId: string, opts: ResolveOptions): Promise<ResolvedTarget> {
  const { matches: all, regions } = await findInstances(nameOrId, opts, { eips: opts.exactAddressKind !== false });
  const matches = applyPick(nameOrId, all, opts.pick);
  if (matches.length === 0) throw await notFoundWithSuggestions(nameOrId, opts, regions);

  const running = matches.filter((i) => i.state === 'running');
  if (running.length > 1) throw ambiguous(nameOrId, running, 'running');
  const forInstance = (i: Instance): ResolveOptions => (opts.privateFor ? { ...opts, private: opts.privateFor(i) } : opts);
  if (running.length === 1) return targetOf(running[0]!, forInstance(running[0]!));

  // Nothing running: stopped, stopping or still starting.
  if (!opts.start) {
    const states = [...new Set(matches.map((i) => i.state))].join('/');
    throw new AppError('STOPPED', `${displayName(nameOrId)} is ${states}: ${matches.map(describeCandidate).join('; ')}.`, undefined, {
      reason: 'stopped',
      ref: nameOrId,
      candidates: candidatesOf(matches),
    } satisfies DetailsFor<'stopped'>);
  }
  if (matches.length > 1) throw ambiguous(nameOrId, matches, 'stopped');
  // A direct connection needs a public address: refuse at once a start that cannot give one.
  const chosen = forInstance(matches[0]!);
  const started = await startAndWait(matches[0]!, chosen.private ? chosen : { ...chosen, beforeStart: (i) => assertPublicAddressComes(i, chosen) });
  return waitUntilReachable(started, chosen);
}

/** The address to use for a running instance, or a clear error when it has none of the kind asked. */
export function targetOf(instance: Instance, opts: Pick<ResolveOptions, 'private'>): ResolvedTarget {
  if (opts.private) {
    // An instance in an IPv6-only subnet has no private IPv4: its IPv6 address is the private one.
    const address = instance.privateIp || instance.ipv6Ip;
    if (address) return { instance, address, addressKind: 'private' };
    throw new AppError('NOT_FOUND', `${label(instance)} has no private IPv4 or IPv6 address.`, 'Run `tagssh list` to check the instance.');
  }
  if (instance.publicIp) return { instance, address: instance.publicIp, addressKind: instance.isElasticIp ? 'eip' : 'public' };
  throw new AppError('NOT_FOUND', `${label(instance)} has no public IP address${instance.privateIp ? ` (private: ${instance.privateIp})` : ''}.`, undefined, {
    reason: 'no-public-ip',
    label: label(instance),
    privateIp: instance.privateIp,
  } satisfies DetailsFor<'no-public-ip'>);
}

/** How long a running instance may report no public address before TagSSH stops waiting for one. */
const NO_PUBLIC_ADDRESS_GRACE_MS = 10_000;

/** After a start: waits until EC2 reports an address and the SSH port accepts connections. */
export async function waitUntilReachable(instance: Instance, opts: ResolveOptions): Promise<ResolvedTarget> {
  const port = opts.port ?? portTag(instance.tags) ?? 22;
  let runningSince: number | undefined;
  return pollUntil(
    `${label(instance)} to answer on port ${port}`,
    async (elapsed) => {
      const now = await describeOne(instance, opts);
      if (now.state !== 'running')
        throw new AppError('STOPPED', `${label(now)} went ${now.state} while starting.`, 'Check the instance in the EC2 console, then try again.');
      const address = opts.private ? now.privateIp : now.publicIp;
      if (!address) {
        // EC2 assigns a public address while the instance is pending; running without one, it gets none.
        runningSince ??= elapsed;
        if (!opts.private && elapsed - runningSince >= NO_PUBLIC_ADDRESS_GRACE_MS) throw noPublicAddressError(now, 'running-without');
        opts.onProgress?.(`${label(now)} is running; waiting for its ${opts.private ? 'private' : 'public'} address… (${Math.round(elapsed / 1000)} s)`, {
          key: opts.private ? 'waitingPrivateAddress' : 'waitingPublicAddress',
          params: { name: label(now), seconds: Math.round(elapsed / 1000) },
        });
        return undefined;
      }
      if (await (opts.answers ? opts.answers(now, address, port) : tcpAnswers(address, port))) {
        opts.onProgress?.(`${label(now)} answers on ${address}:${port}.`, { key: 'answers', params: { name: label(now), address, port } });
        return targetOf(now, opts);
      }
      opts.onProgress?.(`${label(now)} is running at ${address}; waiting for port ${port}… (${Math.round(elapsed / 1000)} s)`, {
        key: 'waitingPort',
        params: { name: label(now), address, port, seconds: Math.round(elapsed / 1000) },
      });
      return undefined;
    },
    waitOptionsFrom(opts),
  );
}
