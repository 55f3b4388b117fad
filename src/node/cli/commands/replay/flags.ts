// What `tagssh replay`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface ReplayFlags {
  speed?: number;
  idleTimeLimit?: number;
}
