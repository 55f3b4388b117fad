// What `tagssh web`'s flags are once commander has read them.

export interface WebFlags {
  port?: number;
  open: boolean;
}
