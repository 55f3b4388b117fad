import type { Instance } from '../../common/model/instance.js';
import type { UserSource } from '../../common/login.js';
import type { Settings } from '../../common/model/settings.js';
import { describeImage, loginUserFor } from '../ssh/users.js';
import { expandHome, keyPairFile } from '../ssh/sshPaths.js';

// The login user of each exported instance, picked as a connection picks it (src/common/login.ts,
// with the AMI looked up here), so the CLI's and the app's exports and `tagssh ssh` always agree;
// and the local file of its EC2 key pair (~/.ssh/<KeyName>.pem), which a connection offers before
// Settings' key, so that the exported config logs in with the key TagSSH logs in with.

export interface ExportLogin {
  user: string;
  source: UserSource;
  keyPairFile?: string;
}

export async function exportLoginUsers(
  instances: readonly Instance[],
  settings: Pick<Settings, 'defaultUser' | 'connectAs' | 'identityFile'> | undefined,
  opts: { flagUser?: string | undefined; profile?: string | undefined } = {},
): Promise<Record<string, ExportLogin>> {
  const pairs = await Promise.all(
    instances.map(
      async (i) =>
        [
          i.id,
          withKeyPairFile(
            i,
            settings?.identityFile,
            await loginUserFor({
              instance: i,
              ...(opts.flagUser ? { flagUser: opts.flagUser } : {}),
              ...(settings ? { settings } : {}),
              lookupImage: (imageId) => describeImage(opts.profile ? { profile: opts.profile } : {}, i.region, imageId),
            }),
          ),
        ] as const,
    ),
  );
  return Object.fromEntries(pairs);
}

function withKeyPairFile(i: Instance, settingsKey: string | null | undefined, login: { user: string; source: UserSource }): ExportLogin {
  const file = keyPairFile(i.keyName);
  if (!file) return login;
  // The same file as Settings' key keeps the person's own spelling (~/.ssh/team.pem stays so).
  return { ...login, keyPairFile: settingsKey && expandHome(settingsKey) === file ? settingsKey : file };
}
