import type { AwsFlags } from '../../awsFlags.js';

// What `tagssh resolve`'s flags are once read, by commander (register.ts) or by the fast path's
// parseArgs (main.ts, which reads RESOLVE_ARGS). Free of commander: the fast path bundles it.

export interface ResolveFlags extends AwsFlags {
  private?: boolean;
  start?: boolean;
  pick?: string;
  port?: number;
  json?: boolean;
  nameB64?: string;
}

/** The options of `tagssh resolve` in node:util parseArgs form (the fast path's parser). */
export const RESOLVE_ARGS = {
  private: { type: 'boolean' },
  start: { type: 'boolean' },
  pick: { type: 'string' },
  port: { type: 'string' },
  json: { type: 'boolean' },
  'name-b64': { type: 'string' },
  profile: { type: 'string' },
  region: { type: 'string', multiple: true },
} as const;
