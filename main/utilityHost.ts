import { utilityProcess } from 'electron';
import type { FromHost, HostSpawner } from '../src/node/host/wire.js';

// Electron's utilityProcess as the engine host's spawner: the supervisor (src/node/host) does the rest.

export function utilitySpawner(entry: string): HostSpawner {
  return () => {
    const child = utilityProcess.fork(entry, [], { serviceName: 'TagSSH engine', stdio: 'inherit' });
    return {
      send: (m) => child.postMessage(m),
      onMessage: (cb) => child.on('message', (m) => cb(m as FromHost)),
      onExit: (cb) => child.on('exit', (code) => cb(code)),
      kill: () => void child.kill(),
      get pid() {
        return child.pid;
      },
    };
  };
}
