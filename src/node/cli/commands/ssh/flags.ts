import type { ConnectFlags } from '../../connectOptions.js';
import type { ShellExtraFlags } from './shellExtras.js';

// What `tagssh ssh`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface SshFlags extends ConnectFlags, ShellExtraFlags {
  pick?: string;
  keepalive?: number;
}
