import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Engine, SessionPort } from '../../src/node/service/types.js';

/**
 * An Engine for tests of the app service and its sections: no instances, no profiles, nothing to
 * forget; starting, stopping and opening fail the test unless a test gives its own. `sessions` is
 * the test's session manager (real or fake); a bare emitter when the test opens none.
 */
export function stubEngine(parts: Partial<Omit<Engine, 'sessions'>> & { sessions?: object } = {}): Engine {
  const { sessions, ...rest } = parts;
  return {
    listInstances: async () => ({ instances: [], fetchedAt: 0, fromCache: true }),
    startInstance: async () => assert.fail('not used'),
    stopInstance: async () => assert.fail('not used'),
    listProfiles: async () => ({ profiles: [], defaultRegion: null }),
    forgetHostKey: async () => false,
    openSession: async () => assert.fail('not used'),
    ...rest,
    sessions: (sessions ?? new EventEmitter()) as unknown as SessionPort,
  };
}
