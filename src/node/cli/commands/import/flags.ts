import type { AwsFlags } from '../../awsFlags.js';

// What `tagssh import`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface ImportFlags extends AwsFlags {
  yes?: boolean;
  dryRun?: boolean;
  json?: boolean;
}
