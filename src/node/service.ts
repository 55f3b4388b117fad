import { randomUUID } from 'node:crypto';
import { SessionOutput } from './service/outputStream.js';
import { PromptBroker } from './service/promptBroker.js';
import { ParkedPages } from './service/parkedPages.js';
import type {
  BenchMethod,
  Emit,
  FilesMethod,
  Handlers,
  ImportMethod,
  LogMethod,
  SecurityGroupsMethod,
  TunnelsMethod,
  WorkspaceMethod,
} from '../common/contract.js';
import { defaultSections } from './service/sections.js';
import type { AppClient, AppService, AppServiceDeps } from './service/types.js';
import type { ClientState } from './service/clientState.js';
import { engineHandlers } from './service/engineHandlers.js';
import { sessionHandlers, type ServiceShared } from './service/sessionHandlers.js';

// createAppService(deps): the ONE backend behind the contract. The Electron main process and the
// browser-mode server both call it; only the transport and the settings store differ. Each UI
// connection gets its own handler set (connect()), so sessions belong to the window that opened
// them and die with it.

/** Every call the service answers itself; the rest come from its sections. */
type BaseHandlers = Omit<Handlers, BenchMethod | FilesMethod | SecurityGroupsMethod | LogMethod | TunnelsMethod | ImportMethod | WorkspaceMethod>;

export function createAppService(deps: AppServiceDeps): AppService {
  const clients = new Set<AppClient>();
  const shared: ServiceShared = { pages: new ParkedPages(deps.reattachGraceMs), claimed: new Set() };
  return {
    connect(emit) {
      const client = connectClient(deps, shared, emit, () => clients.delete(client));
      clients.add(client);
      return client;
    },
    close() {
      for (const c of [...clients]) c.dispose();
      shared.pages.close();
    },
  };
}

/** One UI connection: its own state and handler set; `forget` says whether the service still held it. */
function connectClient(deps: AppServiceDeps, shared: ServiceShared, emit: Emit, forget: () => boolean): AppClient {
  const c: ClientState = {
    id: randomUUID(),
    emit,
    disposed: false,
    pageId: null,
    output: new SessionOutput(deps.engine.sessions, emit, shared.claimed),
    prompts: new PromptBroker(emit),
    opens: new Map(),
    started: new Set(),
    opened: [],
  };
  const base: BaseHandlers = { ...engineHandlers(deps, emit), ...sessionHandlers(deps, c, shared) };

  // The bench.* calls come from the benchmark section (added by default below).
  const handlers = { ...base } as Handlers;
  const disposers: Array<() => void> = [];
  for (const section of deps.sections ?? defaultSections())
    Object.assign(
      handlers,
      section({
        deps,
        emit,
        clientId: c.id,
        ownsSession: (id) => c.output.owns(id),
        onDispose: (fn) => disposers.push(fn),
        onSessionOpened: (fn) => c.opened.push(fn),
      }),
    );

  return {
    id: c.id,
    handlers,
    heldBytes: () => c.output.heldBytes(),
    dispose() {
      if (!forget()) return;
      disposeClient(c, shared);
      for (const fn of disposers) fn();
    },
  };
}

/** The connection went away: prompts and opens end; a page that named itself may come back (a reload), so its sessions wait for it. */
function disposeClient(c: ClientState, { pages }: ServiceShared): void {
  c.disposed = true;
  c.prompts.cancel('The window closed.');
  for (const abort of c.opens.values()) abort.abort();
  if (c.pageId !== null) {
    const keep = c.output.ownedCount() > 0;
    if (keep) c.output.park();
    pages.release(c.pageId, c.id, keep ? c.output : null);
    if (!keep) c.output.dispose();
  } else c.output.dispose();
}
