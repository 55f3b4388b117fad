import { statSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { AppError } from '../common/errors.js';
import type { Engine, EngineScope, OpenRequest, SessionPort } from './service.js';
import { inventoryCachePath, listInstances, readCached } from './aws/inventory.js';
import { regionsOf } from './aws/regions.js';
import { startInstance, stopInstance } from './aws/lifecycle.js';
import { defaultRegion, listProfiles } from './aws/scope.js';
import { KnownHostsStore } from './ssh/knownHosts.js';

// The real engine behind the service: engineer 1's inventory/lifecycle and engineer 2's SSH
// session manager, adapted to the small Engine interface the service is written against.

async function listCacheFirst(scope: EngineScope, refresh: boolean, onUpdate: Parameters<Engine['listInstances']>[1]['onUpdate']) {
  if (!refresh) {
    const regions = await regionsOf(scope);
    const cached = readCached(scope, regions);
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

function notReady(what: string): never {
  throw new AppError('INTERNAL', `${what} is not available in this build.`, 'Update TagSSH.');
}

export function createEngine(): Engine {
  const sessions = new EventEmitter() as unknown as SessionPort;
  return {
    listInstances: (scope, opts) => listCacheFirst(scope, opts.refresh, opts.onUpdate),
    // The UI acts on ids from its list and shows live state by polling, so it does not wait here.
    startInstance: (id, scope) => startInstance(id, { ...scope, regions: [scope.region], wait: false }),
    stopInstance: (id, scope) => stopInstance(id, { ...scope, regions: [scope.region], wait: false }),
    async listProfiles() {
      const profiles = (await listProfiles().catch(() => [])).map((p) => p.name);
      const region = await defaultRegion({}).catch(() => null);
      return { profiles, defaultRegion: region };
    },
    async forgetHostKey(instanceId) {
      return new KnownHostsStore().forget({ instanceId }).length > 0;
    },
    sessions,
    openSession: async (_req: OpenRequest) => notReady('Terminal sessions'),
  };
}
