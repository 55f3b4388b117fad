import { randomUUID } from 'node:crypto';
import { AppError } from '../../common/errors.js';
import type { SavedTunnel } from '../../common/tunnels/contract.js';
import { carriesTag, tagText } from '../../common/tunnels/binding.js';
import { tunnelProblems } from '../../common/tunnels/spec.js';
import { scopeFrom, type AppServiceDeps, type Engine, type HandlerSection } from '../service/types.js';
import { connectTargetFor } from '../ssh/target.js';
import type { ConnectTarget } from '../ssh/types.js';
import { specOf, TunnelManager, type RunPlace } from './manager.js';
import { jsonTunnelStore, type SavedTunnelStore } from './saved.js';
import { linkDeadline } from './linkPlan.js';
import type { TunnelDeps } from './runnerTypes.js';

// The tunnels.* handlers. Saved tunnels live in their own file; running ones in one manager per
// engine (shared by every window), riding on the engine's pooled SSH connections — a tunnel and
// a terminal tab to the same instance share one handshake. A tag tunnel is started per instance. Targets are built as for a terminal
// tab (Name/id, user, key, port, jump host from tags and Settings; host keys as trusted there).

interface TunnelsSectionOptions {
  store?: SavedTunnelStore;
}

const managers = new WeakMap<Engine, TunnelManager>();

/** The engine's tunnel manager (created on first use). */
export function tunnelManagerOf(engine: Engine): TunnelManager {
  let m = managers.get(engine);
  if (!m) {
    m = new TunnelManager();
    managers.set(engine, m);
  }
  return m;
}

const notFound = (id: string) => new AppError('NOT_FOUND', `No saved tunnel ${id}.`, 'Reload the tunnel list.');

function targetFor(deps: AppServiceDeps, instanceId: string, region: string): Promise<ConnectTarget> {
  const settings = deps.settings.get();
  return connectTargetFor(instanceId, { settings, regions: [region], ...(settings.profile ? { profile: settings.profile } : {}) });
}

/**
 * Where a run goes: an instance tunnel's own instance; for a tag tunnel, the instance asked for,
 * if it carries the tag in the instance list the app shows (the same cache-first list).
 */
async function placeOf(deps: AppServiceDeps, t: SavedTunnel, ref: { instanceId?: string | undefined; region?: string | undefined }) {
  if (!t.tag) return { instanceId: t.instanceId!, region: t.region!, run: undefined as RunPlace | undefined };
  const tag = t.tag;
  if (!ref.instanceId || !ref.region)
    throw new AppError('INVALID_INPUT', `The tunnel for ${tagText(tag)} runs on one instance at a time: name the instance (instanceId and region).`);
  const { instanceId, region } = ref;
  const { instances } = await deps.engine.listInstances(scopeFrom({}, deps.settings.get(), region), { refresh: false, onUpdate: () => {} });
  const inst = instances.find((i) => i.id === instanceId && i.region === region);
  if (!inst || !carriesTag(inst, tag))
    throw new AppError(
      'INVALID_INPUT',
      `Instance ${instanceId} is not tagged ${tagText(tag)}.`,
      'Refresh the instance list; the tunnel runs only on instances with its tag.',
      {
        problem: 'tagMissing',
        instanceId,
      },
    );
  return { instanceId, region, run: { instanceId, region } as RunPlace | undefined };
}

/** How the manager gets a link for a run (first, after a drop, ahead of a link's end): a connection from the engine's pool. */
function linkOpener(deps: AppServiceDeps, place: { instanceId: string; region: string }): TunnelDeps['acquire'] {
  const sessions = deps.engine.sessions;
  if (!sessions.acquire) throw new AppError('INTERNAL', 'This backend cannot run tunnels.');
  const acquire = sessions.acquire.bind(sessions);
  let target: ConnectTarget | undefined;
  return async (attempt, reason) => {
    // Look the instance up again (by its id) after a drop: a restarted instance may have a new address.
    if (!target) target = await targetFor(deps, place.instanceId, place.region);
    else if (attempt > 0) target = await targetFor(deps, place.instanceId, place.region).catch(() => target!);
    // A link with a known end (an EC2 Instance Connect Endpoint's hour) is a new one, so
    // that its age is known; a replacement ahead of that end is new by definition.
    const openedAt = Date.now();
    const fresh = reason === 'renew' || linkDeadline(target, openedAt) !== null;
    const got = await acquire(target, fresh ? { fresh: true } : undefined);
    return { ...got, deadline: fresh ? linkDeadline(target, openedAt) : null };
  };
}

export function tunnelsSection(o: TunnelsSectionOptions = {}): HandlerSection {
  return ({ deps, emit, onDispose }) => {
    const store = o.store ?? jsonTunnelStore();
    const manager = tunnelManagerOf(deps.engine);
    let listening = false;
    const onStatus = (s: Parameters<typeof emit<'tunnels.status'>>[1]) => emit('tunnels.status', s);
    // Status reaches a window from the moment it first asks for the list.
    const listen = () => {
      if (listening) return;
      listening = true;
      manager.on('status', onStatus);
    };
    // The window went away: its status listener goes with it (the tunnels keep running).
    onDispose(() => {
      if (listening) manager.off('status', onStatus);
      listening = false;
    });
    const find = (id: string): SavedTunnel => {
      const t = store.list().find((x) => x.id === id);
      if (!t) throw notFound(id);
      return t;
    };
    return {
      'tunnels.list'() {
        listen();
        const tunnels = store.list();
        // An instance tunnel's one state, and every run (up or failed) of each tag tunnel.
        const status = tunnels.filter((t) => !t.tag).map((t) => manager.status(t.id));
        return { tunnels, status: [...status, ...manager.runsOf(new Set(tunnels.filter((t) => t.tag).map((t) => t.id)))] };
      },
      'tunnels.save'(input) {
        const problems = tunnelProblems(specOf({ ...input, id: 'unsaved' }), process.getuid?.() === 0);
        if (problems.length)
          throw new AppError('INVALID_INPUT', `The tunnel is not valid: ${problems.map((p) => `${p.field} ${p.code}`).join(', ')}.`, undefined, { problems });
        if (input.id && manager.isRunning(input.id))
          throw new AppError('INVALID_INPUT', 'Stop the tunnel before changing it.', undefined, { problems: [], running: true });
        const saved: SavedTunnel = { ...input, id: input.id ?? randomUUID() };
        store.update((list) => (list.some((t) => t.id === saved.id) ? list.map((t) => (t.id === saved.id ? saved : t)) : [...list, saved]));
        return saved;
      },
      'tunnels.remove'({ id }) {
        manager.stop(id);
        store.update((list) => list.filter((t) => t.id !== id));
        return null;
      },
      async 'tunnels.start'(ref) {
        listen();
        const t = find(ref.id);
        const place = await placeOf(deps, t, ref);
        return manager.start(t, linkOpener(deps, place), place.run);
      },
      'tunnels.stop'({ id, instanceId }) {
        const t = store.list().find((x) => x.id === id);
        return manager.stop(id, t?.tag ? instanceId : undefined);
      },
    };
  };
}
