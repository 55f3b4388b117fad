import type { AwsFlags } from '../../awsFlags.js';

// What `tagssh list`'s flags are once commander has read them.

export interface ListFlags extends AwsFlags {
  json?: boolean;
  filter?: string;
  cache?: 'prefer' | 'refresh' | 'off';
}
