import type { OpenRequest } from '../service/types.js';
import type { SessionManager } from '../ssh/sessionManager.js';
import { serialConsoleUser } from '../../common/serialConsole/rules.js';
import { openSerialConsole } from './connect.js';

// The app's serial console tab: the instance resolved as every open resolves it (Name or id, the
// candidate picked, the regions of the scope; no address needed), its serial console opened, and
// the connection run by the session manager like any terminal session.

export async function openSerialConsoleSession(sessions: SessionManager, req: OpenRequest) {
  const { resolveTarget } = await import('../aws/instances/resolve.js');
  const scope = { ...(req.profile ? { profile: req.profile } : {}), ...(req.regions ? { regions: req.regions } : {}) };
  // Start and connect: the serial port answers as soon as EC2 reports the instance running (its boot shows there).
  if (req.start) {
    const { startInstance } = await import('../aws/instances/lifecycle.js');
    const started = await startInstance(req.ref, {
      ...scope,
      ...(req.pick ? { pick: req.pick } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
      onProgress: req.onProgress,
      onStarted: () => req.onStarted?.(),
    });
    req = { ...req, pick: started.id };
  }
  const { instance } = await resolveTarget(req.ref, {
    ...(req.profile ? { profile: req.profile } : {}),
    ...(req.regions ? { regions: req.regions } : {}),
    ...(req.pick ? { pick: req.pick } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
    private: true,
    onProgress: req.onProgress,
  });
  const conn = await openSerialConsole({
    instance,
    profile: req.profile,
    onProgress: req.onProgress,
    ...(req.signal ? { signal: req.signal } : {}),
  });
  const label = instance.name ?? instance.id;
  const host = `${serialConsoleUser(instance.id)}@${conn.endpoint.host}:${conn.endpoint.port}`;
  let sessionId: string;
  try {
    sessionId = await sessions.adopt(conn, { label, instanceId: instance.id, host }, { cols: req.cols, rows: req.rows });
  } catch (e) {
    conn.close();
    throw e;
  }
  return {
    sessionId,
    label,
    instanceId: instance.id,
    host,
    serialConsole: {
      region: conn.endpoint.region,
      endpoint: `${conn.endpoint.host}:${conn.endpoint.port}`,
      fingerprint: conn.fingerprint,
      ...(conn.endpoint.overriddenBy ? { overriddenBy: conn.endpoint.overriddenBy } : {}),
    },
  };
}
