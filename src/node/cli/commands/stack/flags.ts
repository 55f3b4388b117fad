import type { AwsFlags } from '../../awsFlags.js';

// What `tagssh stack`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface StackUpFlags extends AwsFlags {
  type?: string;
  efs?: boolean;
  key?: string;
  name?: string;
  sshCidr?: string;
  allowWideSshCidr?: boolean;
  subnet?: string;
  myIpUrl?: string;
  yes?: boolean;
  json?: boolean;
}

export interface StackDownFlags extends AwsFlags {
  yes?: boolean;
  json?: boolean;
}
