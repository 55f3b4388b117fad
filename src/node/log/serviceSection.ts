import { AppError } from '../../common/errors.js';
import type { HandlerSection } from '../service.js';
import { scopeFrom } from '../service.js';
import type { ConnectTarget } from '../ssh/types.js';
import { SessionLog, type LogSubject } from './sessionLog.js';

// The session-log handlers of the app service (one set per UI connection). The log taps the
// engine's session output stream — the bytes the remote side sent, never keystrokes — and ends
// with the session. Listeners are held only while this connection has a log running.

/**
 * Output held while a log's header is looked up (the inventory cache, normally at once), before
 * its file is open. A lookup stuck that long loses what comes past this bound, not the session.
 */
const HELD_LIMIT = 1024 * 1024;

/** A log that runs for a session; its file opens once the header's facts are known. */
interface Running {
  log: SessionLog | null;
  held: Buffer[];
  heldBytes: number;
  ready: Promise<SessionLog>;
}

export function sessionLogSection(): HandlerSection {
  return ({ deps, ownsSession, onSessionOpened }) => {
    const { engine, settings } = deps;
    const logs = new Map<string, Running>();
    const onData = (id: string, chunk: Buffer) => {
      const r = logs.get(id);
      if (!r) return;
      if (r.log) r.log.write(chunk);
      else if (r.heldBytes + chunk.length <= HELD_LIMIT) {
        r.held.push(chunk);
        r.heldBytes += chunk.length;
      }
    };
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
      const r = logs.get(id);
      if (!r) return null;
      drop(id, r);
      const log = await r.ready.catch(() => null);
      if (!log) return null;
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

    /**
     * Starts recording from this moment: `first` is output the session already printed that
     * belongs in the log. Listening starts in this tick, so no byte falls between `first` and
     * what follows while the header is looked up.
     */
    const begin = (sessionId: string, target: ConnectTarget, first: readonly Buffer[], timestamps: boolean): Running => {
      const r: Running = {
        log: null,
        held: [...first],
        heldBytes: first.reduce((n, c) => n + c.length, 0),
        ready: subjectOf(target).then((subject) => {
          const log = SessionLog.open(undefined, subject, { timestamps });
          log.begin();
          for (const chunk of r.held) log.write(chunk);
          r.held = [];
          r.log = log;
          return log;
        }),
      };
      // A file that cannot be opened is reported by log.start; the session itself goes on.
      r.ready.catch(() => drop(sessionId, r));
      if (logs.size === 0) listen(true);
      logs.set(sessionId, r);
      return r;
    };
    const drop = (sessionId: string, r: Running) => {
      if (logs.get(sessionId) !== r) return;
      logs.delete(sessionId);
      if (logs.size === 0) listen(false);
    };

    // Settings › Session logs "every session", or a tab reconnecting with its log on (the open's
    // `log`): the log starts as the session becomes this window's, with what it printed while
    // opening (the motd, "Last login", the first prompt), not one round trip later when the window
    // asks (by then that first screen has gone by).
    onSessionOpened?.((sessionId, early, asked) => {
      const { always, timestamps } = settings.get().sessionLog;
      const target = always || asked.log ? engine.sessions.targetOf?.(sessionId) : undefined;
      if (target && !logs.has(sessionId)) begin(sessionId, target, early, asked.log?.timestamps ?? timestamps);
    });

    return {
      async 'log.start'({ sessionId, timestamps }) {
        const running = logs.get(sessionId);
        if (running) {
          const log = await running.ready.catch(() => null);
          if (log) return { path: log.path };
          drop(sessionId, running); // its file could not be opened: try again, and say why if it fails
        }
        // Only a session this window opened: another window's output is not this one's to record.
        const target = ownsSession(sessionId) ? engine.sessions.targetOf?.(sessionId) : undefined;
        if (!target) throw new AppError('SESSION_CLOSED', `Session ${sessionId} is not open.`, 'Reconnect, then turn the log on again.');
        // Turned on by hand: the log starts now, as the person expects (not with the screen before).
        const log = await begin(sessionId, target, [], timestamps ?? settings.get().sessionLog.timestamps).ready;
        return { path: log.path };
      },
      async 'log.stop'({ sessionId }) {
        if (!ownsSession(sessionId)) return { path: null };
        return { path: await stop(sessionId) };
      },
    };
  };
}
