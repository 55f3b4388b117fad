import type { Instance } from '../../../../common/model/instance.js';
import { awsScopeFrom, type AwsFlags } from '../../awsFlags.js';

// What both exports read: the instances (fresh from EC2), Settings and each instance's login user.

export async function loadInstances(flags: AwsFlags) {
  const { listInstances } = await import('../../../aws/instances/inventory.js');
  return listInstances(awsScopeFrom(flags), { useCache: 'refresh' });
}

/** Settings, as every face reads them (none when there is no settings file). */
export async function exportSettings() {
  const { existsSync } = await import('node:fs');
  const { settingsPath, jsonSettingsStore } = await import('../../../store/settings.js');
  return existsSync(settingsPath()) ? jsonSettingsStore().get() : undefined;
}

/** Login users as `tagssh ssh` picks them (src/common/login.ts), and the key pairs' local files, by instance id. */
export async function loginUsers(instances: readonly Instance[], flags: AwsFlags & { user?: string }, settings: Awaited<ReturnType<typeof exportSettings>>) {
  const { exportLoginUsers } = await import('../../../export/loginUsers.js');
  return new Map(Object.entries(await exportLoginUsers(instances, settings, { flagUser: flags.user, profile: flags.profile })));
}
