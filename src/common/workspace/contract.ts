import * as z from 'zod';
import { call } from '../rpc.js';
import { INSTANCE_ID, REGION_NAME } from '../vocab.js';
import { LOGIN_USER } from '../login.js';
import { PageIdSchema } from '../pageId.js';
import { RemotePathSchema } from '../files/contract.js';
import { TunnelIdSchema } from '../tunnels/contract.js';

// Workspace restore, the contract's part (spread into src/common/contract.ts): the app keeps the
// terminal tabs each page has open (with their file panel and its folder), by instance id, and
// the tunnels the engine runs, in a file of the engine's; an engine that starts again (the app or
// `tagssh web` restarted) offers the previous run's tabs and tunnels once, to the first page that
// asks, which reopens them (Settings › Reopen last run's tabs and tunnels: ask, always, never).

/** One terminal tab as it is kept: which instance, where, what it was called, who logged in by `user@NAME`. */
export const WorkspaceTabSchema = z.object({
  instanceId: z.string().regex(INSTANCE_ID),
  region: z.string().regex(REGION_NAME).optional(),
  label: z.string().min(1).max(256),
  user: z.string().regex(LOGIN_USER).optional(),
  /** Present while the tab's file panel is open: the folder it shows (absent until it listed one). */
  files: z.object({ dir: RemotePathSchema.optional() }).optional(),
});
export type WorkspaceTab = z.infer<typeof WorkspaceTabSchema>;

/** One running tunnel as it is kept: the saved tunnel, and for a tag tunnel the instance it ran on. */
const WorkspaceTunnelSchema = z.object({
  id: TunnelIdSchema,
  instanceId: z.string().regex(INSTANCE_ID).optional(),
  region: z.string().regex(REGION_NAME).optional(),
  /** The saved tunnel's label when it ran (shown if the tunnel has since been deleted). */
  label: z.string().max(256),
});
export type WorkspaceTunnel = z.infer<typeof WorkspaceTunnelSchema>;

export const MAX_WORKSPACE_TABS = 64;
export const MAX_WORKSPACE_TUNNELS = 256;
const Tabs = z.array(WorkspaceTabSchema).max(MAX_WORKSPACE_TABS);
export const WorkspaceTunnelsSchema = z.array(WorkspaceTunnelSchema).max(MAX_WORKSPACE_TUNNELS);

export const workspaceCalls = {
  /** The tabs this page has open now (it sends the whole list on every change). */
  'workspace.save': call(z.object({ pageId: PageIdSchema, tabs: Tabs }), z.null()),
  /** The previous run's tabs and tunnels, given once per run (the first page to ask gets them; later ones get none). */
  'workspace.lastRun': call(z.object({}), z.object({ tabs: Tabs, tunnels: WorkspaceTunnelsSchema, savedAt: z.number().nullable() })),
};
