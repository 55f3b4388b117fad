import type { Engine, HandlerSection } from '../service/types.js';
import { tunnelManagerOf } from '../tunnels/serviceSection.js';
import type { RunningTunnel } from '../tunnels/manager.js';
import { WorkspaceStore } from './workspaceStore.js';

// The workspace.* handlers: one store per engine (so per run), shared by every window. The store
// follows the engine's tunnel manager itself: tunnels run in the engine, not in a page.

const stores = new WeakMap<Engine, WorkspaceStore>();

export function workspaceSection(o: { store?: WorkspaceStore } = {}): HandlerSection {
  return ({ deps }) => {
    let store = stores.get(deps.engine);
    if (!store) {
      const made = o.store ?? new WorkspaceStore();
      tunnelManagerOf(deps.engine).on('runs', (runs: RunningTunnel[]) => made.saveTunnels(runs));
      stores.set(deps.engine, made);
      store = made;
    }
    const s = store;
    return {
      'workspace.save'({ pageId, tabs }) {
        s.save(pageId, tabs);
        return null;
      },
      'workspace.lastRun'() {
        return s.takePrevious();
      },
    };
  };
}
