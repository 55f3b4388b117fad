import type { AwsFlags } from '../../awsFlags.js';

// What `tagssh start` and `tagssh stop` flags are once commander has read them.

export interface LifecycleFlags extends AwsFlags {
  pick?: string;
  wait?: boolean;
  json?: boolean;
}
