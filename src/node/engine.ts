import { statSync } from 'node:fs';
import type { Engine, EngineScope, OpenRequest } from './service/types.js';
import { inventoryCachePath, listInstances, readCached } from './aws/instances/inventory.js';
import { regionsOf } from './aws/config/regions.js';
import { useSdkEc2 } from './aws/config/clients.js';
import { startInstance, stopInstance } from './aws/instances/lifecycle.js';
import { assertPublicAddressComes, usesJumpHost } from './aws/instances/publicAddress.js';
import { defaultRegion, listProfiles, profileOf } from './aws/config/scope.js';
import { KnownHostsStore } from './ssh/knownHosts.js';
import { SessionManager } from './ssh/sessionManager.js';
import { connectTargetFor, type TargetOptions } from './ssh/target.js';
import { portTag } from '../common/vocab.js';

// The real engine behind the service: the EC2 inventory and lifecycle and the SSH session
// manager, adapted to the small Engine interface the service is written against.

async function listCacheFirst(scope: EngineScope, refresh: boolean, onUpdate: Parameters<Engine['listInstances']>[1]['onUpdate']) {
  if (!refresh) {
    const regions = await regionsOf(scope);
    const cached = await readCached(scope, regions);
    if (cached) {
      let fetchedAt = Date.now();
      for (const r of regions) {
        try {
          fetchedAt = Math.min(fetchedAt, statSync(inventoryCachePath(scope, r)).mtimeMs);
        } catch {
          // raced with a writer: keep "now"
        }
      }
      listInstances(scope, { useCache: 'refresh' }).then(
        (instances) => onUpdate({ instances, fetchedAt: Date.now(), fromCache: false }),
        () => {}, // the cached list stays on screen; the next explicit refresh reports the error
      );
      return { instances: cached, fetchedAt: Math.round(fetchedAt), fromCache: true };
    }
  }
  const instances = await listInstances(scope, { useCache: 'refresh' });
  return { instances, fetchedAt: Date.now(), fromCache: false };
}

/**
 * Start-and-connect, first half: asks EC2 to start the instance (telling the service once it did,
 * so a cancel can say the instance keeps starting) after checking that the address the
 * connection will use can come at all. The resolver then waits for it as for any start.
 */
async function startForConnect(req: OpenRequest, opts: TargetOptions): Promise<void> {
  const { waitUntilReachable } = await import('./aws/instances/resolve.js');
  const scope: EngineScope = {};
  if (req.profile) scope.profile = req.profile;
  if (req.regions) scope.regions = req.regions;
  let viaJump = false;
  let started = false;
  const inst = await startInstance(req.ref, {
    ...scope,
    ...(req.pick ? { pick: req.pick } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
    onProgress: req.onProgress,
    wait: false,
    beforeStart: async (i) => {
      viaJump = usesJumpHost(i, req.settings.jumpHost);
      if (!req.private && !viaJump) await assertPublicAddressComes(i, scope);
    },
    onStarted: () => {
      started = true;
      req.onStarted?.();
    },
  });
  // The resolver finds the instance by id from here on; through a jump host it waits for the private address.
  opts.pick = inst.id;
  if (viaJump || usesJumpHost(inst, req.settings.jumpHost)) opts.private ??= true;
  // An instance EC2 reports running at once still boots: wait until SSH answers on its public
  // address (through a jump host, the resolver waits for the private address as for any start).
  if (started && !opts.private) {
    const port = portTag(inst.tags) ?? req.settings.port;
    await waitUntilReachable(inst, { ...scope, port, onProgress: req.onProgress, ...(req.signal ? { signal: req.signal } : {}) });
  }
}

// The UI acknowledges what it has painted; past 4 MiB unpainted the SSH channel is paused.
const FLOW = { highWater: 4 * 1024 * 1024, lowWater: 1024 * 1024 };

export function createEngine(): Engine {
  // The app's engine and `tagssh web` run for hours: the AWS SDK is their EC2 client.
  useSdkEc2();
  const sessions = new SessionManager({ flowControl: FLOW });
  return {
    listInstances: (scope, opts) => listCacheFirst(scope, opts.refresh, opts.onUpdate),
    // The UI acts on ids from its list and shows live state by polling, so it does not wait here.
    startInstance: (id, scope) => startInstance(id, { ...scope, regions: [scope.region], wait: false }),
    stopInstance: (id, scope) => stopInstance(id, { ...scope, regions: [scope.region], wait: false }),
    async listProfiles() {
      const profiles = (await listProfiles().catch(() => [])).map((p) => p.name);
      const region = await defaultRegion({}).catch(() => null);
      return { profiles, defaultRegion: region, defaultProfile: profileOf({}) };
    },
    listRegions: (scope, fresh) => regionsOf({ ...scope, regions: ['all'] }, { fresh }),
    async forgetHostKey(instanceId) {
      return new KnownHostsStore().forget({ instanceId }).length > 0;
    },
    sessions,
    async openSession(req) {
      if (req.serialConsole) {
        const { openSerialConsoleSession } = await import('./serialConsole/session.js');
        return openSerialConsoleSession(sessions, req);
      }
      const opts: TargetOptions = { settings: req.settings, start: req.start, onProgress: req.onProgress };
      if (req.profile) opts.profile = req.profile;
      if (req.regions) opts.regions = req.regions;
      if (req.pick) opts.pick = req.pick;
      if (req.private !== undefined) opts.private = req.private;
      if (req.acceptNewHostKey) opts.acceptNew = req.acceptNewHostKey;
      if (req.user) opts.user = req.user;
      if (req.eic) opts.eic = true;
      if (req.signal) opts.signal = req.signal;
      if (req.start) await startForConnect(req, opts);
      const target = await connectTargetFor(req.ref, opts);
      req.onProgress(`Connecting to ${target.user}@${target.host}:${target.port}…`, {
        key: 'connecting',
        params: { target: `${target.user}@${target.host}:${target.port}`, ...(target.userSource ? { userSource: target.userSource } : {}) },
      });
      const id = await sessions
        .open(target, {
          cols: req.cols,
          rows: req.rows,
          onProgress: req.onProgress,
          askPassphrase: req.askPassphrase,
          ...(req.askSecret ? { askSecret: req.askSecret } : {}),
          ...(req.signal ? { signal: req.signal } : {}),
        })
        .catch(async (e: unknown) => {
          // A timeout is often a changed public IP: the error carries what the security groups make of it.
          const [{ explainTimeout }, { myIpUrl }] = await Promise.all([
            import('./aws/securityGroups/securityGroups.js'),
            import('./aws/securityGroups/myIp.js'),
          ]);
          throw await explainTimeout(e, target, opts, myIpUrl(undefined, req.settings.myIpUrl));
        });
      const info = sessions.list().find((s) => s.id === id);
      const { transportOf } = await import('./transport/choose.js');
      return {
        sessionId: id,
        label: info?.label ?? target.label,
        instanceId: info?.instanceId ?? target.instanceId ?? null,
        host: info?.host ?? target.host,
        transport: transportOf(target),
        user: target.user,
        ...(target.userSource ? { userSource: target.userSource } : {}),
      };
    },
  };
}
