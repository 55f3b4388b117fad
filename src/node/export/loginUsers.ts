import type { Instance } from '../../common/model/instance.js';
import type { UserSource } from '../../common/login.js';
import type { Settings } from '../../common/model/settings.js';
import { describeImage, loginUserFor } from '../ssh/users.js';

// The login user of each exported instance, picked as a connection picks it (src/common/login.ts,
// with the AMI looked up here), so the CLI's and the app's exports and `tagssh ssh` always agree.

export async function exportLoginUsers(
  instances: readonly Instance[],
  settings: Pick<Settings, 'defaultUser' | 'connectAs'> | undefined,
  opts: { flagUser?: string | undefined; profile?: string | undefined } = {},
): Promise<Record<string, { user: string; source: UserSource }>> {
  const pairs = await Promise.all(
    instances.map(
      async (i) =>
        [
          i.id,
          await loginUserFor({
            instance: i,
            ...(opts.flagUser ? { flagUser: opts.flagUser } : {}),
            ...(settings ? { settings } : {}),
            lookupImage: (imageId) => describeImage(opts.profile ? { profile: opts.profile } : {}, i.region, imageId),
          }),
        ] as const,
    ),
  );
  return Object.fromEntries(pairs);
}
