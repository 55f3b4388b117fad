import type { Handlers } from '../../common/contract.js';
import { LIST_MAX_ENTRIES } from '../../common/files/contract.js';
import { joinRemote } from '../../common/files/paths.js';
import type { HandlerSection } from '../service/types.js';
import { poolKey } from '../ssh/sessionManager.js';
import { shellCwd } from './panelCwd.js';
import { assertFree, listForPanel } from './panelSftp.js';
import { PanelChannels, poolOf } from './panelChannels.js';
import { PanelTransfers } from './panelTransfers.js';

// The file panel's handlers (one set per UI connection). Every call names a terminal session;
// its SFTP channel rides on that session's pooled SSH connection and is let go when the session
// closes (panelChannels.ts). Transfers are chunked by the renderer, uploads written under a temp
// name until complete, and a transfer left alone for `idleMs` is given up (panelTransfers.ts).

interface FilesSectionOptions {
  /** A transfer without a chunk call for this long is abandoned (its temp file removed). */
  idleMs?: number;
}

export function filesSection(o: FilesSectionOptions = {}): HandlerSection {
  const idleMs = o.idleMs ?? 60_000;
  return ({ deps, emit, ownsSession }) => {
    const sessions = deps.engine.sessions;
    const channels = new PanelChannels(sessions, ownsSession);
    const filesOf = (sessionId: string) => channels.filesOf(sessionId);
    const transfers = new PanelTransfers(emit, idleMs);

    const handlers: Partial<Handlers> = {
      async 'files.list'({ sessionId, path, limit }) {
        const files = await filesOf(sessionId);
        const dir = await files.realpath(path ?? '.');
        return { path: dir, ...(await listForPanel(files, dir, limit ?? LIST_MAX_ENTRIES)) };
      },
      async 'files.cwd'({ sessionId }) {
        const pool = poolOf(sessions);
        const target = channels.targetOf(pool, sessionId);
        // The tab's place among the terminals on its connection, in the order they opened.
        const key = poolKey(target);
        const mates = pool.list().filter((s) => {
          const t = pool.targetOf(s.id);
          return t && poolKey(t) === key;
        });
        const index = mates.findIndex((s) => s.id === sessionId) + 1;
        const { connection } = await filesOf(sessionId);
        return { path: await shellCwd(connection, index, target.label) };
      },
      async 'files.mkdir'({ sessionId, dir, name }) {
        const path = joinRemote(dir, name);
        const files = await filesOf(sessionId);
        await assertFree(files, path);
        await files.mkdir(path);
        return { path };
      },
      async 'files.rename'({ sessionId, dir, from, to }) {
        const files = await filesOf(sessionId);
        await assertFree(files, joinRemote(dir, to));
        await files.rename(joinRemote(dir, from), joinRemote(dir, to));
        return null;
      },
      async 'files.delete'({ sessionId, dir, name, recursive }) {
        await (await filesOf(sessionId)).remove(joinRemote(dir, name), { recursive });
        return null;
      },
      async 'files.upload'({ sessionId, ...rest }) {
        return transfers.upload(await filesOf(sessionId), rest);
      },
      'files.uploadChunk': (input) => transfers.uploadChunk(input),
      async 'files.download'({ sessionId, ...rest }) {
        return transfers.download(await filesOf(sessionId), rest);
      },
      'files.downloadChunk': (input) => transfers.downloadChunk(input),
      'files.cancel': ({ transferId }) => transfers.cancel(transferId),
    };
    return handlers;
  };
}
