import type { ConnectFlags } from '../../connectOptions.js';

// What `tagssh cp`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface CpFlags extends ConnectFlags {
  recursive?: boolean;
  preserve?: boolean;
  resume?: boolean;
  progress?: boolean;
  pick?: string;
}
