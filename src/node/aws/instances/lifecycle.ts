import type { Instance, InstanceState } from '../../../common/model/instance.js';
import { AppError } from '../../../common/errors.js';
import { ec2For } from '../config/clients.js';
import { describeWithEips } from '../ec2/describe.js';
import { ambiguous, applyPick, displayName, findInstances, notFoundWithSuggestions } from './lookup.js';
import type { ResolveOptions } from './resolveOptions.js';
import { pollUntil, throwIfAborted, waitOptionsFrom } from './wait.js';

// Start and stop by name or id, optionally waiting for the new state with a progress line.
// `start NAME` acts on the matching instance that is not running (and `stop` on the running one),
// so a name shared by a running and a stopped machine still means one thing for each verb.

type LifecycleOptions = ResolveOptions & {
  wait?: boolean;
  timeoutMs?: number;
  /** Runs before StartInstances with the instance as it is (e.g. to refuse a start that cannot lead to a connection). */
  beforeStart?: (instance: Instance) => Promise<void>;
  /** EC2 accepted StartInstances: from here on, giving up leaves the instance starting. */
  onStarted?: (instance: Instance) => void;
};

export async function startInstance(ref: string, opts: LifecycleOptions): Promise<Instance> {
  const target = await pickFor(ref, opts, 'start');
  if (target.state === 'running') {
    opts.onProgress?.(`${label(target)} is already running.`);
    return target;
  }
  return startAndWait(target, opts);
}

export async function stopInstance(ref: string, opts: LifecycleOptions): Promise<Instance> {
  const target = await pickFor(ref, opts, 'stop');
  if (target.state === 'stopped') {
    opts.onProgress?.(`${label(target)} is already stopped.`);
    return target;
  }
  if (target.state === 'pending') await waitForState(target, 'running', opts);
  opts.onProgress?.(`Stopping ${label(target)}…`);
  await (await ec2For(opts, target.region)).stopInstances([target.id]);
  if (opts.wait === false) return { ...target, state: 'stopping' };
  return waitForState(target, 'stopped', opts);
}

/** Starts a known instance (waiting out a `stopping` first) and, unless wait is false, waits for `running`. */
export async function startAndWait(target: Instance, opts: LifecycleOptions): Promise<Instance> {
  // EC2 refuses StartInstances while an instance is still stopping.
  if (target.state === 'stopping') target = await waitForState(target, 'stopped', opts);
  if (target.state !== 'pending') {
    await opts.beforeStart?.(target);
    throwIfAborted(opts.signal);
    opts.onProgress?.(`Starting ${label(target)}…`, { key: 'starting', params: { name: label(target) } });
    await (await ec2For(opts, target.region)).startInstances([target.id]);
    opts.onStarted?.(target);
  }
  if (opts.wait === false) return { ...target, state: 'pending' };
  return waitForState(target, 'running', opts);
}

/** Polls DescribeInstances for one instance until it reaches `state`. */
async function waitForState(target: Instance, state: InstanceState, opts: LifecycleOptions): Promise<Instance> {
  return pollUntil(
    `${label(target)} to be ${state}`,
    async (elapsed) => {
      const now = await describeOne(target, opts);
      if (now.state === state) {
        opts.onProgress?.(`${label(now)} is ${state}${elapsed >= 1000 ? ` (${Math.round(elapsed / 1000)} s)` : ''}.`, {
          key: 'reached',
          params: { name: label(now), state, seconds: Math.round(elapsed / 1000) },
        });
        return now;
      }
      if (now.state === 'terminated' || now.state === 'shutting-down') {
        throw new AppError('NOT_FOUND', `${label(now)} is ${now.state}.`, 'It cannot be started again; run `tagssh list` to choose another instance.');
      }
      opts.onProgress?.(`${label(now)} is ${now.state}… (${Math.round(elapsed / 1000)} s)`, {
        key: 'waitingState',
        params: { name: label(now), state: now.state, seconds: Math.round(elapsed / 1000) },
      });
      return undefined;
    },
    waitOptionsFrom(opts),
  );
}

/** The instance as EC2 reports it now (NOT_FOUND when it is gone). */
export async function describeOne(target: Pick<Instance, 'id' | 'region'>, opts: ResolveOptions): Promise<Instance> {
  throwIfAborted(opts.signal);
  const [now] = await describeWithEips(await ec2For(opts, target.region), { ids: [target.id] });
  if (!now) throw new AppError('NOT_FOUND', `Instance ${target.id} no longer exists in ${target.region}.`, 'Run `tagssh list` to see the current instances.');
  return now;
}

export function label(i: Pick<Instance, 'id' | 'name'>): string {
  return i.name === null ? i.id : `${displayName(i.name)} (${i.id})`;
}

async function pickFor(ref: string, opts: LifecycleOptions, verb: 'start' | 'stop'): Promise<Instance> {
  const { matches: all, regions } = await findInstances(ref, opts);
  const matches = applyPick(ref, all, opts.pick);
  if (matches.length === 0) throw await notFoundWithSuggestions(ref, opts, regions);
  if (matches.length === 1) return matches[0]!;
  // Several share the name: act on the ones this verb would change.
  const actionable = matches.filter((i) => (verb === 'start' ? i.state !== 'running' : i.state !== 'stopped'));
  if (actionable.length === 1) return actionable[0]!;
  if (actionable.length === 0) return matches[0]!; // all already in the wanted state
  throw ambiguous(ref, actionable, verb === 'start' ? 'not-running' : 'running');
}
