import { AppError } from '../../common/errors.js';
import type { HandlerSection } from '../service.js';
import { scopeFrom } from '../service.js';
import type { ConnectTarget } from '../ssh/types.js';
import { SessionLog, type LogSubject } from './sessionLog.js';

// The session-log handlers of the app service (one set per UI connection). The log taps the
// engine's session output stream — the bytes the remote side sent, never keystrokes — and ends
// with the session. Listeners are held only while this connection has a log running.

export function sessionLogSection(): HandlerSection {
  return ({ deps, ownsSession }) => {
    const { engine, settings } = deps;
    const logs = new Map<string, SessionLog>();
    const onData = (id: string, chunk: Buffer) => logs.get(id)?.write(chunk);
    const onClosed = (id: string) => void stop(id);
    const listen = (on: boolean) => {
      if (on) {
        engine.sessions.on('data', onData);
        engine.sessions.on('closed', onClosed);
      } else {
        engine.sessions.off('data', onData);
        engine.sessions.off('closed', onClosed);
      }
    };
    const stop = async (id: string): Promise<string | null> => {
      const log = logs.get(id);
      if (!log) return null;
      logs.delete(id);
      if (logs.size === 0) listen(false);
      await log.close();
      return log.path;
    };

    /** What the engine knows about the session's instance (from the inventory cache). */
    const subjectOf = async (target: ConnectTarget): Promise<LogSubject> => {
      const instanceId = target.instanceId ?? null;
      const list = instanceId
        ? await engine.listInstances(scopeFrom({}, settings.get(), target.region), { refresh: false, onUpdate: () => {} }).catch(() => null)
        : null;
      const inst = list?.instances.find((i) => i.id === instanceId);
      return {
        instanceId,
        name: inst?.name ?? target.label,
        type: inst?.type ?? null,
        region: target.region ?? inst?.region ?? null,
        az: inst?.az ?? null,
        address: `${target.host}:${target.port}`,
        user: target.user,
      };
    };

    return {
      async 'log.start'({ sessionId, timestamps }) {
        const running = logs.get(sessionId);
        if (running) return { path: running.path };
        // Only a session this window opened: another window's output is not this one's to record.
        const target = ownsSession(sessionId) ? engine.sessions.targetOf?.(sessionId) : undefined;
        if (!target) throw new AppError('SESSION_CLOSED', `Session ${sessionId} is not open.`, 'Reconnect, then turn the log on again.');
        const subject = await subjectOf(target);
        const log = SessionLog.open(undefined, subject, { timestamps: timestamps ?? settings.get().sessionLog.timestamps });
        if (logs.size === 0) listen(true);
        logs.set(sessionId, log);
        return { path: log.path };
      },
      async 'log.stop'({ sessionId }) {
        if (!ownsSession(sessionId)) return { path: null };
        return { path: await stop(sessionId) };
      },
    };
  };
}
