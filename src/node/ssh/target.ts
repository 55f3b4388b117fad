import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Settings } from '../../common/model/settings.js';
import type { Instance } from '../../common/model/instance.js';
import type { TransportChoice } from '../../common/model/transport.js';
import { AppError } from '../../common/errors.js';
import { MAX_HOPS, portTag } from '../../common/vocab.js';
import type { AwsScope } from '../aws/scope.js';
import { tagsshPaths } from '../store/paths.js';
import { expandHome, sshDir } from './sshPaths.js';
import { describeImage, loginUserFor } from './users.js';
import type { ConnectTarget } from './types.js';
import type { TransportDecision, TransportProbes } from '../transport/choose.js';

export type { ConnectTarget } from './types.js';

// From "a Name tag" to everything needed to connect: address (the Name-tag resolver), login
// user, port, key, bastions and host-key acceptance. Per-instance overrides travel on the
// instance itself as tags (tagssh:user, tagssh:port, tagssh:jump) so a team shares them.
// Precedence: command-line flag > tag > AMI rule (user only) > settings > built-in default.

export interface TargetOptions extends AwsScope {
  user?: string;
  port?: number;
  identity?: string;
  /** Bastion(s), outermost first: instance Names/ids or [user@]host[:port]. Overrides tag and setting. */
  via?: string | string[];
  private?: boolean;
  start?: boolean;
  pick?: string;
  acceptNew?: boolean | string;
  settings?: SshSettings;
  onProgress?: (msg: string) => void;
  signal?: AbortSignal;
  /** Key for bastions that have none of their own (the target's --identity). */
  fallbackIdentity?: string;
  /** How the first hop goes (--transport); default: tag tagssh:transport, else settings, else auto. */
  transport?: TransportChoice;
  /** Told which transport was chosen and why (for `tagssh ssh -v`). */
  onTransport?: (decision: TransportDecision) => void;
  /** AWS look-ups of the transport choice (tests). */
  transportProbes?: TransportProbes;
  /** Log in with a key pushed through EC2 Instance Connect first (--eic). */
  eic?: boolean;
  /** Told the target instance as EC2 just reported it (its tags pick the tunnel CLI's saved tunnels). */
  onInstance?: (instance: Instance) => void;
}

/** The part of the settings that shapes a connection. */
export type SshSettings = Pick<Settings, 'defaultUser' | 'identityFile' | 'port' | 'jumpHost'> & {
  transport?: TransportChoice;
  instanceConnect?: InstanceConnectSetting;
};

/** EC2 Instance Connect keys: pushed only when no key of the user's is accepted, always first, or never. */
export type InstanceConnectSetting = 'fallback' | 'always' | 'never';

/** The tag that asks for EC2 Instance Connect keys on an instance ("true"). */
export const EIC_TAG = 'tagssh:eic';

/** "[user@]host[:port]" when the spec names a host rather than an instance. */
export function parseHostSpec(spec: string): { user?: string; host: string; port?: number } | null {
  const m = /^(?:([^@\s]+)@)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(spec);
  if (!m) return null;
  const host = m[2]!.replace(/^\[|\]$/g, '');
  const isAddress = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
  // A bare word like "bastion" is an instance Name; user@ or :port or an IP/FQDN makes it a host.
  if (!m[1] && !m[3] && !isAddress && !host.includes('.')) return null;
  const out: { user?: string; host: string; port?: number } = { host };
  if (m[1]) out.user = m[1];
  if (m[3]) out.port = Number(m[3]);
  return out;
}

/**
 * The settings file, validated — but when there is none (the common case for the CLI), the
 * defaults without loading the schema library: `tagssh ssh` must start about as fast as ssh.
 */
async function loadSettings(): Promise<SshSettings> {
  // Same path as store/settings.ts's settingsPath(), which cannot be imported without zod.
  if (!existsSync(join(tagsshPaths().config, 'settings.json'))) return { defaultUser: null, identityFile: null, port: 22, jumpHost: null, transport: 'auto' };
  const { jsonSettingsStore } = await import('../store/settings.js');
  return jsonSettingsStore().get();
}

/** Builds the ConnectTarget for an instance Name or id (resolving bastions the same way). */
export async function connectTargetFor(nameOrId: string, opts: TargetOptions): Promise<ConnectTarget> {
  const settings = opts.settings ?? (await loadSettings());
  return build(nameOrId, opts, settings, new Set(), 0);
}

async function build(nameOrId: string, opts: TargetOptions, settings: SshSettings, seen: Set<string>, depth: number): Promise<ConnectTarget> {
  if (depth > MAX_HOPS)
    throw new AppError('INVALID_INPUT', `The jump chain to ${nameOrId} is longer than ${MAX_HOPS} hops.`, 'Check the tagssh:jump tags for a loop.');
  const [{ resolveTarget }, { jumpHostsFor }] = await Promise.all([import('../aws/resolve.js'), import('../aws/publicAddress.js')]);
  const scope: AwsScope = {};
  if (opts.profile) scope.profile = opts.profile;
  if (opts.regions) scope.regions = opts.regions;

  // Resolve once; which address to use depends on the jump host, which may come from a tag, so
  // it is decided per instance as soon as the instance is known (before a --start waits for one).
  const jumpSpecsOf = (inst: Instance): string[] => jumpHostsFor(inst, depth === 0 ? settings.jumpHost : null, opts.via);
  // Transports apply to the final target; bastions are reached as they always were.
  const { transportChoiceFor, chooseTransport, needsPrivateAddress, answersThrough } = await import('../transport/choose.js');
  const choiceOf = (inst: Instance): TransportChoice => (depth === 0 ? transportChoiceFor(inst, opts.transport, settings.transport) : 'direct');
  const resolved = await resolveTarget(nameOrId, {
    ...scope,
    privateFor: (inst) => opts.private ?? needsPrivateAddress(inst, choiceOf(inst), jumpSpecsOf(inst)),
    ...(opts.start ? { start: true } : {}),
    // After --start, a tunnel transport asks through the tunnel whether the port answers.
    ...(opts.start && depth === 0
      ? {
          answers: async (i: Instance, address: string, port: number) => {
            const through = answersThrough(choiceOf(i), scope.profile, opts.transportProbes);
            if (through) return through(i, address, port);
            const { tcpAnswers } = await import('../aws/tcpProbe.js');
            return tcpAnswers(address, port);
          },
        }
      : {}),
    ...(opts.pick ? { pick: opts.pick } : {}),
    ...(opts.port ? { port: opts.port } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const inst = resolved.instance;
  const key = `${inst.region}/${inst.id}`;
  if (seen.has(key))
    throw new AppError(
      'INVALID_INPUT',
      `The jump chain loops back to ${inst.name ?? inst.id}.`,
      'Fix the tagssh:jump tags so that no bastion jumps through itself.',
    );
  seen.add(key);
  if (depth === 0) opts.onInstance?.(inst);

  // Bastions: --via, else the instance's tag, else (for the final target only) the settings.
  let jumpSpecs = jumpSpecsOf(inst);
  const address = resolved.address;
  const port = opts.port ?? portTag(inst.tags) ?? settings.port;
  let decision: TransportDecision | undefined;
  if (depth === 0 && !opts.private) {
    decision = await chooseTransport({
      instance: inst,
      choice: choiceOf(inst),
      jumpHosts: jumpSpecs,
      port,
      ...(scope.profile ? { profile: scope.profile } : {}),
      ...(opts.transportProbes ? { probes: opts.transportProbes } : {}),
    });
    opts.onTransport?.(decision);
    // A tunnel replaces the bastions.
    if (decision.opener) jumpSpecs = [];
  }

  const jump: ConnectTarget[] = [];
  for (const spec of jumpSpecs) jump.push(await bastion(spec, opts, settings, seen, depth + 1));

  const { user } = await loginUserFor({
    instance: inst,
    ...(opts.user ? { flagUser: opts.user } : {}),
    settingsUser: settings.defaultUser,
    lookupImage: (imageId) => describeImage(scope, inst.region, imageId),
  });

  const t: ConnectTarget = { host: address, port, user, instanceId: inst.id, region: inst.region, label: inst.name ?? inst.id, keyName: inst.keyName };
  if (scope.profile) t.profile = scope.profile;
  const identity = opts.identity ?? keyPairFile(inst.keyName) ?? opts.fallbackIdentity ?? settings.identityFile ?? undefined;
  if (identity) t.identityFile = expandHome(identity);
  if (jump.length) t.jump = jump;
  if (decision?.opener) t.transport = decision.opener;
  const eic: InstanceConnectSetting = opts.eic || inst.tags[EIC_TAG]?.trim().toLowerCase() === 'true' ? 'always' : (settings.instanceConnect ?? 'fallback');
  if (eic !== 'never') t.instanceConnect = { mode: eic, az: inst.az };
  if (opts.acceptNew !== undefined) t.acceptNewHostKey = opts.acceptNew;
  return t;
}

/** The local private key named after the instance's EC2 key pair, if there is one. */
export function keyPairFile(keyName: string | null | undefined, dir = sshDir()): string | undefined {
  if (!keyName || /[/\\]/.test(keyName)) return undefined;
  return [join(dir, `${keyName}.pem`), join(dir, keyName)].find((p) => existsSync(p));
}

async function bastion(spec: string, opts: TargetOptions, settings: SshSettings, seen: Set<string>, depth: number): Promise<ConnectTarget> {
  const host = parseHostSpec(spec);
  if (host) {
    const t: ConnectTarget = { host: host.host, port: host.port ?? 22, user: host.user ?? settings.defaultUser ?? opts.user ?? 'ec2-user', label: spec };
    const identity = opts.identity ?? settings.identityFile;
    if (identity) t.identityFile = expandHome(identity);
    if (opts.acceptNew !== undefined) t.acceptNewHostKey = opts.acceptNew;
    return t;
  }
  // A bastion is reached on its public address (unless its own tag puts it behind another bastion);
  // the target's --user/--port/--identity/--via are not the bastion's.
  const inner: TargetOptions = { ...opts };
  if (opts.identity) inner.fallbackIdentity = opts.identity;
  delete inner.user;
  delete inner.port;
  delete inner.identity;
  delete inner.via;
  delete inner.private;
  delete inner.pick;
  delete inner.start;
  opts.onProgress?.(`Resolving bastion ${spec}…`);
  return build(spec, inner, settings, seen, depth);
}
