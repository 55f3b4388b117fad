import { existsSync } from 'node:fs';
import type { Settings } from '../../common/model/settings.js';
import type { Instance } from '../../common/model/instance.js';
import type { TransportChoice } from '../../common/model/transport.js';
import { CONNECTION_DEFAULTS } from '../../common/model/settingsDefaults.js';
import { AppError } from '../../common/errors.js';
import { MAX_HOPS, portTag, TAG } from '../../common/vocab.js';
import { chosenIdentity, DEFAULT_LOGIN_USER, loginPort, type InstanceLogin } from '../../common/login.js';
import { parseHostSpec, tagJumpVerdict, type TagJumpRefusedDetails } from '../../common/jumpTag.js';
import type { AwsScope } from '../aws/config/scope.js';
import { settingsPath } from '../store/settingsPath.js';
import { expandHome, keyPairFile } from './sshPaths.js';
import { describeImage, loginUserFor } from './users.js';
import type { ConnectTarget } from './types.js';
import type { TransportDecision, TransportProbes } from '../transport/choose.js';
import type * as ChooseModule from '../transport/choose.js';
import type { ResolveOptions } from '../aws/instances/resolveOptions.js';

export type { ConnectTarget } from './types.js';

// From "a Name tag" to everything needed to connect: address (the Name-tag resolver), login
// user, port, key, bastions and host-key acceptance. Per-instance overrides travel on the
// instance itself as tags (tagssh:user, tagssh:port, tagssh:jump) so a team shares them.
// Precedence (src/common/login.ts): flag > the instance's "Connect as…" > tag > settings > the
// AMI's user > built-in default.

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
  /** Forward the ssh-agent (-A); default: Settings. */
  agentForward?: boolean;
  /** Send LANG/LC_* (default: Settings, on). */
  sendLocale?: boolean;
  /** Told the target instance as EC2 just reported it (its tags pick the tunnel CLI's saved tunnels). */
  onInstance?: (instance: Instance) => void;
}

/** The part of the settings that shapes a connection. */
type SshSettings = Pick<Settings, 'defaultUser' | 'identityFile' | 'port' | 'jumpHost'> & {
  /** Outside hosts a tagssh:jump tag may name (Settings); absent = none. */
  tagJumpHosts?: string[];
  transport?: TransportChoice;
  instanceConnect?: InstanceConnectSetting;
  connectAs?: Record<string, InstanceLogin>;
  agentForward?: boolean;
  sendLocale?: boolean;
};

/** EC2 Instance Connect keys: offered after a refused login, always pushed first, or never. */
type InstanceConnectSetting = 'ask' | 'always' | 'never';

/** LANG and LC_* of this process, as OpenSSH's `SendEnv LANG LC_*` sends them. */
function localeEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if ((k === 'LANG' || /^LC_[A-Z_]+$/.test(k)) && v && /^[\x20-\x7e]{1,100}$/.test(v)) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** The tag that asks for EC2 Instance Connect keys on an instance ("true"). */
const EIC_TAG = 'tagssh:eic';

export { parseHostSpec } from '../../common/jumpTag.js';

/**
 * The settings file, validated — but when there is none (the common case for the CLI), the
 * defaults without loading the settings schema: `tagssh ssh` must start about as fast as ssh.
 */
async function loadSettings(): Promise<SshSettings> {
  if (!existsSync(settingsPath())) return { ...CONNECTION_DEFAULTS };
  const { jsonSettingsStore } = await import('../store/settings.js');
  return jsonSettingsStore().get();
}

/** Builds the ConnectTarget for an instance Name or id (resolving bastions the same way). */
export async function connectTargetFor(nameOrId: string, opts: TargetOptions): Promise<ConnectTarget> {
  const settings = opts.settings ?? (await loadSettings());
  return build(nameOrId, opts, settings, new Set(), 0);
}

/** One hop being built: its options and what it decides per instance once the instance is known. */
interface Hop {
  opts: TargetOptions;
  settings: SshSettings;
  depth: number;
  scope: AwsScope;
  /** Bastions: --via, else the instance's tag, else (for the final target only) the settings. */
  jumpsOf: (inst: Instance) => { specs: string[]; source: 'via' | 'tag' | 'settings' | null };
  choiceOf: (inst: Instance) => TransportChoice;
  choose: typeof ChooseModule;
}

async function hopFor(opts: TargetOptions, settings: SshSettings, depth: number): Promise<Hop> {
  const { jumpHostsWithSource } = await import('../aws/instances/publicAddress.js');
  const scope: AwsScope = {};
  if (opts.profile) scope.profile = opts.profile;
  if (opts.regions) scope.regions = opts.regions;
  const jumpsOf = (inst: Instance) => jumpHostsWithSource(inst, depth === 0 ? settings.jumpHost : null, opts.via);
  // Transports apply to the final target; bastions are reached as they always were.
  const choose = await import('../transport/choose.js');
  const choiceOf = (inst: Instance): TransportChoice => (depth === 0 ? choose.transportChoiceFor(inst, opts.transport, settings.transport) : 'direct');
  return { opts, settings, depth, scope, jumpsOf, choiceOf, choose };
}

/**
 * Resolves once; which address to use depends on the jump host, which may come from a tag, so it
 * is decided per instance as soon as the instance is known (before a --start waits for one).
 */
function resolveOptionsOf(hop: Hop): ResolveOptions {
  const { opts, scope } = hop;
  return {
    ...scope,
    privateFor: (inst) => opts.private ?? hop.choose.needsPrivateAddress(inst, hop.choiceOf(inst), hop.jumpsOf(inst).specs),
    ...(opts.start ? { start: true } : {}),
    // After --start, a tunnel transport asks through the tunnel whether the port answers.
    ...(opts.start && hop.depth === 0
      ? {
          answers: async (i: Instance, address: string, port: number) => {
            const through = hop.choose.answersThrough(hop.choiceOf(i), scope.profile, opts.transportProbes);
            if (through) return through(i, address, port);
            const { tcpAnswers } = await import('../aws/instances/tcpProbe.js');
            return tcpAnswers(address, port);
          },
        }
      : {}),
    ...(opts.pick ? { pick: opts.pick } : {}),
    ...(opts.port ? { port: opts.port } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    // A connection needs the address, not whether it is an Elastic IP: one EC2 call (DescribeInstances)
    // instead of two, as `tagssh resolve` makes (the association's owner still tells EIPs on AWS).
    exactAddressKind: false,
  };
}

/** Refuses an instance the jump chain already passed through. */
function markSeen(seen: Set<string>, inst: Instance): void {
  const key = `${inst.region}/${inst.id}`;
  if (seen.has(key))
    throw new AppError(
      'INVALID_INPUT',
      `The jump chain loops back to ${inst.name ?? inst.id}.`,
      'Fix the tagssh:jump tags so that no bastion jumps through itself.',
    );
  seen.add(key);
}

async function decideTransport(hop: Hop, inst: Instance, jumpHosts: string[], port: number): Promise<TransportDecision> {
  const { opts, scope } = hop;
  const decision = await hop.choose.chooseTransport({
    instance: inst,
    choice: hop.choiceOf(inst),
    jumpHosts,
    port,
    ...(scope.profile ? { profile: scope.profile } : {}),
    ...(opts.transportProbes ? { probes: opts.transportProbes } : {}),
  });
  opts.onTransport?.(decision);
  return decision;
}

/** The hop's bastions, built in order; a tag's jump hosts (anyone with ec2:CreateTags writes them) must be instances or hosts Settings allow. */
async function bastionsOf(hop: Hop, inst: Instance, specs: string[], seen: Set<string>): Promise<ConnectTarget[]> {
  const fromTag = hop.jumpsOf(inst).source === 'tag';
  if (fromTag) for (const spec of specs) assertTagJumpAllowed(inst, spec, hop.settings);
  const jump: ConnectTarget[] = [];
  for (const spec of specs) jump.push(await bastion(spec, hop.opts, hop.settings, seen, hop.depth + 1, fromTag));
  return jump;
}

async function build(nameOrId: string, opts: TargetOptions, settings: SshSettings, seen: Set<string>, depth: number): Promise<ConnectTarget> {
  if (depth > MAX_HOPS)
    throw new AppError('INVALID_INPUT', `The jump chain to ${nameOrId} is longer than ${MAX_HOPS} hops.`, 'Check the tagssh:jump tags for a loop.');
  const [{ resolveTarget }, hop] = await Promise.all([import('../aws/instances/resolve.js'), hopFor(opts, settings, depth)]);
  const { scope } = hop;
  const resolved = await resolveTarget(nameOrId, resolveOptionsOf(hop));
  const inst = resolved.instance;
  markSeen(seen, inst);
  if (depth === 0) opts.onInstance?.(inst);

  let jumpSpecs = hop.jumpsOf(inst).specs;
  const port = loginPort({
    instanceId: inst.id,
    tags: inst.tags,
    settings: { ...settings, port: settings.port },
    flagPort: opts.port,
    tagPort: () => portTag(inst.tags),
  });
  const decision = depth === 0 && !opts.private ? await decideTransport(hop, inst, jumpSpecs, port) : undefined;
  // A tunnel replaces the bastions.
  if (decision?.opener) jumpSpecs = [];
  const jump = await bastionsOf(hop, inst, jumpSpecs, seen);

  const { user, source } = await loginUserFor({
    instance: inst,
    ...(opts.user ? { flagUser: opts.user } : {}),
    settings,
    lookupImage: (imageId) => describeImage(scope, inst.region, imageId),
  });

  const t: ConnectTarget = {
    host: resolved.address,
    port,
    user,
    userSource: source,
    instanceId: inst.id,
    region: inst.region,
    label: inst.name ?? inst.id,
    keyName: inst.keyName,
    launchTime: inst.launchTime,
  };
  if (scope.profile) t.profile = scope.profile;
  const identity = identityFor(inst, hop, port);
  if (identity) t.identityFile = expandHome(identity);
  if (jump.length) t.jump = jump;
  if (decision?.opener) t.transport = decision.opener;
  addLoginExtras(t, inst, hop);
  return t;
}

/** The key file: the flag or "Connect as…", the key pair's local file, the target's key (for a bastion), then Settings. */
function identityFor(inst: Instance, { opts, settings }: Hop, port: number): string | undefined {
  return (
    chosenIdentity({ instanceId: inst.id, settings: { ...settings, port }, flagIdentity: opts.identity }) ??
    keyPairFile(inst.keyName) ??
    opts.fallbackIdentity ??
    settings.identityFile ??
    undefined
  );
}

/** EC2 Instance Connect, agent forwarding, locale and host-key acceptance of a built target. */
function addLoginExtras(t: ConnectTarget, inst: Instance, { opts, settings, depth }: Hop): void {
  const eic: InstanceConnectSetting = opts.eic || inst.tags[EIC_TAG]?.trim().toLowerCase() === 'true' ? 'always' : (settings.instanceConnect ?? 'ask');
  if (eic !== 'never') t.instanceConnect = { mode: eic, az: inst.az };
  if (depth === 0) {
    if (opts.agentForward ?? settings.agentForward) t.agentForward = true;
    const env = (opts.sendLocale ?? settings.sendLocale ?? true) ? localeEnv() : undefined;
    if (env) t.env = env;
  }
  if (opts.acceptNew !== undefined) t.acceptNewHostKey = opts.acceptNew;
}

/** Throws, naming the tag and how to allow it, when an instance's tagssh:jump names an outside host Settings do not allow. */
function assertTagJumpAllowed(inst: Instance, spec: string, settings: SshSettings): void {
  const verdict = tagJumpVerdict(spec, settings.tagJumpHosts ?? []);
  if (verdict.ok) return;
  const who = `${inst.name ?? inst.id} (${inst.id})`;
  throw new AppError(
    'INVALID_INPUT',
    `The tag ${TAG.jump}=${inst.tags[TAG.jump]} on ${who} sends connections through ${spec}, a host outside EC2 that is not on the allow-list; refusing to use it (a tag can be set by anyone allowed ec2:CreateTags).`,
    undefined,
    {
      reason: 'tag-jump-refused',
      instanceId: inst.id,
      name: inst.name,
      tag: inst.tags[TAG.jump] ?? spec,
      host: verdict.host,
      port: verdict.port,
      spec,
    } satisfies TagJumpRefusedDetails,
  );
}

async function bastion(spec: string, opts: TargetOptions, settings: SshSettings, seen: Set<string>, depth: number, fromTag = false): Promise<ConnectTarget> {
  const host = parseHostSpec(spec);
  if (host) {
    const t: ConnectTarget = {
      host: host.host,
      port: host.port ?? 22,
      user: host.user ?? settings.defaultUser ?? opts.user ?? DEFAULT_LOGIN_USER,
      label: spec,
    };
    // An outside host a tag named (and Settings allow): its key file only, never the agent's keys.
    if (fromTag) t.noAgentKeys = true;
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
