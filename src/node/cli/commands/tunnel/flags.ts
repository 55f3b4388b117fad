import type { ConnectFlags } from '../../connectOptions.js';

// What `tagssh tunnel`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface TunnelFlags extends ConnectFlags {
  local?: string[];
  dynamic?: string[];
  remote?: string[];
  saved?: string[];
  list?: boolean;
  json?: boolean;
  pick?: string;
  keepalive?: number;
}
