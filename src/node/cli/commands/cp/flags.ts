import type { ConnectFlags } from '../../connectOptions.js';

// What `tagssh cp`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface CpFlags extends ConnectFlags {
  recursive?: boolean;
  preserve?: boolean;
  resume?: boolean;
  progress?: boolean;
  pick?: string;
  /** s3://BUCKET[/prefix]: the bytes go through S3 (cp/viaS3.ts). */
  viaS3?: string;
}
