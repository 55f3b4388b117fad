import type { Instance } from '../../common/model/instance.js';
import { ec2For } from '../aws/config/clients.js';
import type { AwsScope } from '../aws/config/scope.js';
import { loginUser, type LoginSettings, type UserSource } from '../../common/login.js';

// Which user to log in as: the one order of src/common/login.ts (flag, the instance's "Connect
// as…", tag, Settings, the AMI, ec2-user), with the AMI step answered here. EC2 images each bake in
// their own default account; the family is read from the instance's PlatformDetails and, when that
// only says "Linux/UNIX", from the image's name and description (DescribeImages).

export interface ImageInfo {
  name: string | null;
  description: string | null;
}

type LoginUserSource = UserSource;

/** Image name/description patterns, most specific first. */
const RULES: Array<[RegExp, string]> = [
  [/\bbitnami\b/i, 'bitnami'],
  [/\bubuntu\b|canonical/i, 'ubuntu'],
  [/\bdebian\b/i, 'admin'],
  [/\bcentos\b/i, 'centos'],
  [/\brocky\b/i, 'rocky'],
  [/\balma ?linux\b/i, 'ec2-user'],
  [/\bfedora\b/i, 'fedora'],
  [/\bkali\b/i, 'kali'],
  [/\barch ?linux\b/i, 'arch'],
  [/\bfreebsd\b/i, 'ec2-user'],
  [/\bopensuse\b|\bsuse\b|\bsles\b/i, 'ec2-user'],
  [/\brhel\b|red ?hat/i, 'ec2-user'],
  [/\boracle\b|\bol[89]\b/i, 'ec2-user'],
  [/\bamzn|amazon linux|\bal20\d\d\b/i, 'ec2-user'],
  [/\bwindows\b/i, 'Administrator'],
];

/** The login user an image family implies, or undefined when nothing identifies it. */
export function userFromImage(platform: string | null, platformDetails: string | null, image: ImageInfo | null): string | undefined {
  if (platform === 'windows' || /windows/i.test(platformDetails ?? '')) return 'Administrator';
  for (const hint of [image?.name, image?.description, platformDetails]) {
    if (!hint || /^Linux\/UNIX$/i.test(hint)) continue;
    for (const [re, user] of RULES) if (re.test(hint)) return user;
  }
  return undefined;
}

/** PlatformDetails alone decides only for a few families; otherwise the image must be looked up. */
function needsImageLookup(instance: Pick<Instance, 'platform' | 'platformDetails'>): boolean {
  return userFromImage(instance.platform, instance.platformDetails, null) === undefined;
}

const imageCache = new Map<string, Promise<ImageInfo | null>>();

/** DescribeImages for one image id; null when the image is gone or not visible to this account. */
export function describeImage(scope: AwsScope, region: string, imageId: string): Promise<ImageInfo | null> {
  const key = `${scope.profile ?? ''}/${region}/${imageId}`;
  let p = imageCache.get(key);
  if (!p) {
    p = ec2For(scope, region)
      .then((ec2) => ec2.describeImage(imageId))
      .catch(() => null); // deregistered or private images: fall back to the defaults
    imageCache.set(key, p);
  }
  return p;
}

interface LoginUserInput {
  instance: Instance;
  flagUser?: string;
  /** The settings' default user and per-instance choices; absent = none. */
  settings?: Pick<LoginSettings, 'defaultUser' | 'connectAs'>;
  lookupImage?: (imageId: string) => Promise<ImageInfo | null>;
}

export async function loginUserFor(input: LoginUserInput): Promise<{ user: string; source: LoginUserSource }> {
  const { instance } = input;
  const settings: LoginSettings = {
    defaultUser: input.settings?.defaultUser ?? null,
    connectAs: input.settings?.connectAs ?? {},
    port: 22,
    identityFile: null,
  };
  return loginUser({ instanceId: instance.id, tags: instance.tags, flagUser: input.flagUser, settings }, async () => {
    let image: ImageInfo | null = null;
    if (needsImageLookup(instance) && instance.imageId && input.lookupImage) image = await input.lookupImage(instance.imageId);
    return userFromImage(instance.platform, instance.platformDetails, image);
  });
}
