import type { Duplex } from 'node:stream';
import type { Instance } from '../../common/model/instance.js';
import { isTransportChoice, TRANSPORT_CHOICES, type TransportChoice, type TransportName } from '../../common/model/transport.js';
import { AppError } from '../../common/errors.js';
import { label } from '../aws/instances/lifecycle.js';
import { TAG } from '../../common/vocab.js';
import type { InstanceConnectEndpoint } from '../aws/instances/instanceConnect.js';
import type { ConnectTarget, TransportOpener } from '../ssh/types.js';
import { noEndpointError, notManagedError } from './missing.js';

// Which way the first hop reaches an instance. Precedence: --transport > tagssh:transport tag >
// the settings' default > auto. Auto: a jump host configured for it (--via, tagssh:jump, the
// settings) → jump, as before transports existed; else a public address → direct; else the EC2
// Instance Connect Endpoint of its VPC → eice; else Systems Manager, when the instance is a
// managed node → ssm; else one error listing what was checked.

/** The AWS look-ups a choice may need; tests and other faces may supply their own. */
export interface TransportProbes {
  findEndpoint(instance: Instance, profile?: string): Promise<InstanceConnectEndpoint | null>;
  isManagedNode(o: { instanceId: string; region: string; profile?: string }): Promise<boolean>;
  openSsmSocket(o: { instanceId: string; region: string; profile?: string; port: number; signal?: AbortSignal }): Promise<Duplex>;
}

const defaultProbes: TransportProbes = {
  async findEndpoint(instance, profile) {
    const { findInstanceConnectEndpoint } = await import('../aws/instances/instanceConnect.js');
    return findInstanceConnectEndpoint(instance, profile);
  },
  async isManagedNode(o) {
    const ssm = await import('../ssm/socket.js');
    return ssm.isManagedNode(o);
  },
  async openSsmSocket(o) {
    const ssm = await import('../ssm/socket.js');
    return ssm.openSsmSocket(o);
  },
};

export interface TransportDecision {
  name: TransportName;
  /** Set for eice and ssm: how connect() opens the first hop. */
  opener?: TransportOpener;
  /** Why this one, for `tagssh ssh -v`. */
  why: string;
}

/** The transport asked for: the flag, else the instance's tag, else the settings. A bad tag is an error naming it. */
export function transportChoiceFor(instance: Pick<Instance, 'tags'>, flag: TransportChoice | undefined, setting: TransportChoice | undefined): TransportChoice {
  if (flag) return flag;
  const tag = instance.tags[TAG.transport]?.trim();
  if (tag) {
    if (!isTransportChoice(tag))
      throw new AppError('INVALID_INPUT', `The ${TAG.transport} tag "${tag}" is not a transport.`, `Set it to one of ${TRANSPORT_CHOICES.join(', ')}.`);
    return tag;
  }
  return setting ?? 'auto';
}

/**
 * Whether the connection goes to the private address (so resolving must not insist on a public
 * one). Auto decides so only for a running instance without a public address: a stopped one
 * has none yet, and a start-and-connect keeps its check that a public address will come.
 */
export function needsPrivateAddress(instance: Pick<Instance, 'publicIp' | 'state'>, choice: TransportChoice, jumpHosts: readonly string[]): boolean {
  if (jumpHosts.length > 0 || choice === 'eice' || choice === 'ssm' || choice === 'jump') return true;
  if (choice === 'direct') return false;
  return instance.state === 'running' && !instance.publicIp;
}

interface ChooseOptions {
  instance: Instance;
  choice: TransportChoice;
  /** Bastions configured for the instance (--via, tag, settings), outermost first. */
  jumpHosts: readonly string[];
  /** The SSH port on the instance. */
  port: number;
  profile?: string;
  probes?: TransportProbes;
}

export async function chooseTransport(o: ChooseOptions): Promise<TransportDecision> {
  const { instance, choice } = o;
  const probes = o.probes ?? defaultProbes;
  const scope = { instanceId: instance.id, region: instance.region, ...(o.profile !== undefined ? { profile: o.profile } : {}) };
  const eice = (endpoint: InstanceConnectEndpoint, why: string): TransportDecision => ({
    name: 'eice',
    why,
    opener: {
      name: 'eice',
      label: `EC2 Instance Connect Endpoint ${endpoint.id}`,
      open: async (signal) => {
        const { openEiceSocket } = await import('./eice.js');
        return openEiceSocket({ instance, port: o.port, endpoint, ...(o.profile !== undefined ? { profile: o.profile } : {}), ...(signal ? { signal } : {}) });
      },
    },
  });
  const ssm = (why: string): TransportDecision => ({
    name: 'ssm',
    why,
    opener: { name: 'ssm', label: 'SSM Session Manager', open: (signal) => probes.openSsmSocket({ ...scope, port: o.port, ...(signal ? { signal } : {}) }) },
  });

  switch (choice) {
    case 'direct':
      return { name: 'direct', why: 'asked for' };
    case 'jump':
      if (!o.jumpHosts.length)
        throw new AppError('INVALID_INPUT', `The jump transport was asked for ${label(instance)}, but no jump host is configured for it.`, undefined, {
          missing: 'jump-host',
        });
      return { name: 'jump', why: 'asked for' };
    case 'eice': {
      const endpoint = await probes.findEndpoint(instance, o.profile);
      if (!endpoint) throw noEndpointError(instance);
      return eice(endpoint, `asked for; endpoint ${endpoint.id} in ${endpoint.vpcId}`);
    }
    case 'ssm':
      if (!(await probes.isManagedNode(scope))) throw notManagedError(instance);
      return ssm('asked for; the instance is an SSM managed node');
    case 'auto':
      break;
  }
  if (o.jumpHosts.length) return { name: 'jump', why: `auto: jump host ${o.jumpHosts.join(' → ')} configured` };
  if (instance.publicIp) return { name: 'direct', why: `auto: public address ${instance.publicIp}` };
  // Each look-up that fails (no permission, no network to the service) is named, not fatal: the
  // next way in may still work.
  const checked: string[] = ['no jump host'];
  const attempt = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await run();
    } catch (e) {
      checked.push(`could not check ${what} (${(e as Error).message.replace(/\.$/, '')})`);
      return undefined;
    }
  };
  const endpoint = await attempt('for an EC2 Instance Connect Endpoint', () => probes.findEndpoint(instance, o.profile));
  if (endpoint) return eice(endpoint, `auto: no public address; endpoint ${endpoint.id} in ${endpoint.vpcId}`);
  if (endpoint === null) checked.push(`no EC2 Instance Connect Endpoint in ${instance.vpcId ?? 'its VPC'}`);
  const managed = await attempt('Systems Manager', () => probes.isManagedNode(scope));
  if (managed) return ssm('auto: no public address, no endpoint; the instance is an SSM managed node');
  if (managed === false) checked.push('not an SSM managed node');
  throw new AppError(
    'NOT_FOUND',
    `${label(instance)} has no public IP address${instance.privateIp ? ` (private: ${instance.privateIp})` : ''}, and no other way in: ${checked.join(', ')}.`,
    undefined,
    { missing: 'transport', checked },
  );
}

/**
 * Whether the instance's port answers through the transport the choice will take, for the wait
 * after a start (null: a plain TCP connect decides). Never throws: not yet is false.
 */
export function answersThrough(
  choice: TransportChoice,
  profile?: string,
  probes: TransportProbes = defaultProbes,
): ((instance: Instance, address: string, port: number) => Promise<boolean>) | null {
  if (choice !== 'eice' && choice !== 'ssm') return null;
  return async (instance, _address, port) => {
    try {
      const scope = { instanceId: instance.id, region: instance.region, ...(profile !== undefined ? { profile } : {}) };
      if (choice === 'ssm') return await probes.isManagedNode(scope);
      const endpoint = await probes.findEndpoint(instance, profile);
      if (!endpoint) return false;
      const { openEiceSocket } = await import('./eice.js');
      const sock = await openEiceSocket({ instance, port, endpoint, timeoutMs: 5_000, ...(profile !== undefined ? { profile } : {}) });
      sock.destroy();
      return true;
    } catch {
      return false;
    }
  };
}

/** The transport a built target uses, for what the tab and `tagssh ssh -v` show. */
export function transportOf(target: Pick<ConnectTarget, 'transport' | 'jump'>): TransportName {
  return target.transport?.name ?? (target.jump?.length ? 'jump' : 'direct');
}
