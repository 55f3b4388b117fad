import type { AwsFlags } from '../../awsFlags.js';

// What `tagssh sg`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface SgFlags extends AwsFlags {
  pick?: string;
  port?: number;
  json?: boolean;
}

export interface AllowFlags extends SgFlags {
  ip?: string;
  myIpUrl?: string;
  group?: string;
  yes?: boolean;
}

export interface RevokeFlags extends SgFlags {
  ip?: string;
  allTagssh?: boolean;
  yes?: boolean;
}
