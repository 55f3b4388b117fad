import { join } from 'node:path';
import * as z from 'zod';
import {
  MAX_WORKSPACE_TABS,
  MAX_WORKSPACE_TUNNELS,
  WorkspaceTabSchema,
  WorkspaceTunnelsSchema,
  type WorkspaceTab,
  type WorkspaceTunnel,
} from '../../common/workspace/contract.js';
import { readJsonFile, writeJsonFile } from '../store/jsonFile.js';
import { tagsshPaths } from '../store/paths.js';

// The terminal tabs and running tunnels of this run, kept in <config>/workspace.json as pages
// report their tabs (by page, so a reloaded page replaces its own list instead of adding to it)
// and as tunnels start and stop. When the engine starts, the file holds the previous run's: they
// are read once, and offered once (see serviceSection.ts).

const WORKSPACE_FILE = 'workspace.json';
const SCHEMA_VERSION = 1;

const FileSchema = z.object({
  savedAt: z.number().nullable().default(null),
  tabs: z.array(WorkspaceTabSchema).max(MAX_WORKSPACE_TABS).default([]),
  tunnels: WorkspaceTunnelsSchema.default([]),
});
type WorkspaceFile = z.infer<typeof FileSchema>;
const empty = (): WorkspaceFile => ({ savedAt: null, tabs: [], tunnels: [] });

function workspacePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(tagsshPaths(env).config, WORKSPACE_FILE);
}

export class WorkspaceStore {
  /** The previous run's workspace until a page takes it (null once taken). */
  private previous: WorkspaceFile | null;
  private readonly pages = new Map<string, WorkspaceTab[]>();
  private tunnels: WorkspaceTunnel[] = [];

  constructor(private readonly path = workspacePath()) {
    try {
      this.previous = readJsonFile(path, SCHEMA_VERSION, empty, (raw) => FileSchema.parse(raw));
    } catch {
      // An unreadable or newer file offers nothing; this run's workspace replaces it.
      this.previous = empty();
    }
  }

  /** The previous run's tabs and tunnels, once: a second page (another browser tab) gets none. */
  takePrevious(): WorkspaceFile {
    const p = this.previous ?? empty();
    this.previous = null;
    return p;
  }

  /** A page's open tabs now; the file becomes every page's tabs of this run. */
  save(pageId: string, tabs: WorkspaceTab[]): void {
    this.pages.set(pageId, tabs);
    this.write();
  }

  /** The tunnels that run now (the engine's whole list, after each start or stop). */
  saveTunnels(tunnels: WorkspaceTunnel[]): void {
    this.tunnels = tunnels.slice(0, MAX_WORKSPACE_TUNNELS);
    this.write();
  }

  private write(): void {
    const tabs: WorkspaceTab[] = [];
    for (const list of this.pages.values()) for (const t of list) if (tabs.length < MAX_WORKSPACE_TABS) tabs.push(t);
    writeJsonFile(this.path, SCHEMA_VERSION, { savedAt: Date.now(), tabs, tunnels: this.tunnels } satisfies WorkspaceFile);
  }
}
