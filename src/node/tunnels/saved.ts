import { dirname, join } from 'node:path';
import * as z from 'zod';
import { SavedTunnelSchema, type SavedTunnel } from '../../common/tunnels/contract.js';
import { withFileLock } from '../store/fileLock.js';
import { readJsonFile, writeJsonFile } from '../store/jsonFile.js';
import { ensurePrivateDir, tagsshPaths } from '../store/paths.js';

// The app's saved tunnels: <config>/tunnels.json, a file of their own so that saving Settings
// (a whole-object write from a form) can never drop them, and the other way round.

// Version 2 adds tunnels bound to a tag (no instanceId/region, a `tag` instead). Every version-1
// tunnel is an instance tunnel, which version 2 reads as it is; the next write stamps version 2,
// so an older TagSSH refuses the file rather than misreading a tag tunnel.
const SCHEMA_VERSION = 2;
const FileSchema = z.array(SavedTunnelSchema).max(500);

export interface SavedTunnelStore {
  list(): SavedTunnel[];
  /** Applies `change` to the list under the file lock and writes the result. */
  update(change: (list: SavedTunnel[]) => SavedTunnel[]): SavedTunnel[];
}

export function savedTunnelsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(tagsshPaths(env).config, 'tunnels.json');
}

export function jsonTunnelStore(path = savedTunnelsPath()): SavedTunnelStore {
  const read = () =>
    readJsonFile(
      path,
      SCHEMA_VERSION,
      () => [],
      (raw) => FileSchema.parse(raw),
    );
  return {
    list: read,
    update(change) {
      ensurePrivateDir(dirname(path));
      return withFileLock(path, () => {
        const next = FileSchema.parse(change(read()));
        writeJsonFile(path, SCHEMA_VERSION, next);
        return next;
      });
    },
  };
}
