import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contract, type Emit } from '../../common/contract.js';
import { createDispatcher, type Envelope } from '../../common/rpc.js';
import { AppError } from '../../common/errors.js';
import type { AppService } from '../service/types.js';
import { createEngineHost, forkSpawner, type EngineHost, type HostConnection } from '../host/engineHost.js';

// What browser mode's sockets talk to: the engine in its own process (as in the desktop app, so
// SSH crypto and benchmark runs never stall the server that answers the browser, and a crashed
// or hung engine is replaced while the page stays up), or a service in this process (fake
// services in tests).

export interface Backend {
  /** One UI connection; `deliver` receives every response and event for it. */
  connect(deliver: (msg: Envelope) => void): HostConnection;
  /** The process the engine runs in now (diagnostics: its memory, its children). */
  enginePid(): number | undefined;
  close(): void;
}

/** A service in this process, each connection with its own dispatcher. */
export function inlineBackend(service: AppService, owned: boolean): Backend {
  return {
    connect(deliver) {
      const emit: Emit = (event, payload) => deliver({ t: 'evt', event, payload });
      const client = service.connect(emit);
      const dispatcher = createDispatcher(contract, client.handlers, deliver);
      return { send: (msg) => void dispatcher.handle(msg), close: () => client.dispose() };
    },
    enginePid: () => process.pid,
    close: () => owned && service.close(),
  };
}

/** The engine host process (the built dist/main/engineHost.cjs), restarted when it dies or hangs. */
function hostBackend(host: EngineHost): Backend {
  return { connect: (deliver) => host.connect(deliver), enginePid: () => host.pid, close: () => host.stop() };
}

/** The built engine host next to this checkout's other build outputs (tsx in src, or a bundle in dist/cli). */
function defaultEngineEntry(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ['../../..', '../..', '..']) {
    const entry = resolve(here, up, 'dist/main/engineHost.cjs');
    if (existsSync(entry)) return entry;
  }
  throw new AppError('NOT_FOUND', 'The engine is not built (dist/main/engineHost.cjs is missing).', 'Run `npm run build` first.');
}

export function processBackend(entry = defaultEngineEntry(), env: NodeJS.ProcessEnv = { ...process.env }): Backend {
  return hostBackend(createEngineHost({ spawn: forkSpawner(entry, { env }) }));
}

/** The real engine in this process, with the settings file under TAGSSH_HOME. */
export async function inlineEngineBackend(): Promise<Backend> {
  const [{ createAppService }, { createEngine }, { jsonSettingsStore }, { reattachGraceFrom }] = await Promise.all([
    import('../service.js'),
    import('../engine.js'),
    import('../store/settings.js'),
    import('../service/parkedPages.js'),
  ]);
  return inlineBackend(createAppService({ engine: createEngine(), settings: jsonSettingsStore(), reattachGraceMs: reattachGraceFrom(process.env) }), true);
}
