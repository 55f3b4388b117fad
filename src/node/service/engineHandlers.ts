import { AppError } from '../../common/errors.js';
import type { Emit, Handlers } from '../../common/contract.js';
import { sshConfigEnv } from '../export/exportEnv.js';
import { scopeFrom, scopeKeyOf, type AppServiceDeps } from './types.js';

// The handlers that pass a call on to the engine or the settings and hold nothing of a
// connection's sessions: instances, AWS profiles and regions, settings, host keys, exports.

type EngineMethod =
  | 'instances.list'
  | 'instances.start'
  | 'instances.stop'
  | 'aws.profiles'
  | 'aws.regions'
  | 'settings.get'
  | 'settings.set'
  | 'hostKeys.forget'
  | 'export.sshConfigEnv'
  | 'export.loginUsers';

export function engineHandlers({ engine, settings }: AppServiceDeps, emit: Emit): Pick<Handlers, EngineMethod> {
  return {
    async 'instances.list'(input) {
      const s = settings.get();
      const scope = scopeFrom(input, s);
      const scopeKey = scopeKeyOf(scope);
      return engine.listInstances(scope, {
        refresh: input.refresh,
        onUpdate: (list) => emit('instances.updated', { ...list, scopeKey }),
      });
    },
    async 'instances.start'(input) {
      return engine.startInstance(input.id, { ...scopeFrom(input, settings.get(), input.region), region: input.region });
    },
    async 'instances.stop'(input) {
      return engine.stopInstance(input.id, { ...scopeFrom(input, settings.get(), input.region), region: input.region });
    },
    async 'aws.profiles'() {
      const found = await engine.listProfiles();
      const extra = settings.get().profiles;
      return { ...found, profiles: [...new Set([...found.profiles, ...extra])].sort() };
    },
    async 'aws.regions'(input) {
      if (!engine.listRegions) throw new AppError('INTERNAL', 'This backend cannot list regions.');
      const scope = scopeFrom(input.profile ? { profile: input.profile } : {}, settings.get());
      return { regions: await engine.listRegions({ ...(scope.profile ? { profile: scope.profile } : {}) }, input.refresh) };
    },
    'settings.get'() {
      return settings.get();
    },
    'settings.set'(next) {
      return settings.set(next);
    },
    async 'hostKeys.forget'({ instanceId }) {
      return { removed: await engine.forgetHostKey(instanceId) };
    },
    'export.sshConfigEnv'() {
      return sshConfigEnv();
    },
    async 'export.loginUsers'({ instances }) {
      const s = settings.get();
      const { exportLoginUsers } = await import('../export/loginUsers.js');
      return { users: await exportLoginUsers(instances, s, { profile: s.profile ?? undefined }) };
    },
  };
}
