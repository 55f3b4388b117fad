import type { AwsFlags } from '../../awsFlags.js';

// What `tagssh proxy`'s flags are once commander has read them.

export interface ProxyFlags extends AwsFlags {
  port?: number;
  start?: boolean;
  private?: boolean;
  pick?: string;
  nameB64?: string;
  eice?: boolean;
  ssm?: boolean;
}
