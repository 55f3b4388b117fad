import { AppError } from '../../common/errors.js';
import { LOG_READ_LIMIT, type LogKind } from '../../common/log/contract.js';
import type { Settings } from '../../common/model/settings.js';
import type { HandlerSection } from '../service/types.js';
import { scopeFrom } from '../service/types.js';
import type { ConnectTarget } from '../ssh/types.js';
import { folderOf, kindOfLog, listLogs, logPathOf, readLog } from './logFolder.js';
import { Recording } from './recording.js';
import type { LogSubject } from './sessionLog.js';
import { logSubjectOf } from './subject.js';
import { runningLogsOf, type Running } from './runningLogs.js';

// The session-log handlers of the app service (one set per UI connection): a session's text log
// and its recording for replay, each started and stopped on its own, tapping the engine's session
// output stream (the bytes the remote side sent, never keystrokes) and its resizes, ending with
// the session; and the Logs view's list, read and reveal of the log folder. The records run in
// the engine (runningLogs.ts): a window starts and stops those of the sessions it owns.

/** Which records Settings › Session logs "every session" keeps. */
function kindsOf(s: Settings['sessionLog']): LogKind[] {
  return s.format === 'both' ? ['text', 'cast'] : [s.format];
}

export function sessionLogSection(): HandlerSection {
  return ({ deps, ownsSession, onSessionOpened }) => {
    const { engine, settings } = deps;
    const logs = runningLogsOf(engine);

    /** What the engine knows about the session's instance (from the inventory cache). */
    const subjectOf = async (target: ConnectTarget): Promise<LogSubject> => {
      const instanceId = target.instanceId ?? null;
      const list = instanceId
        ? await engine.listInstances(scopeFrom({}, settings.get(), target.region), { refresh: false, onUpdate: () => {} }).catch(() => null)
        : null;
      return logSubjectOf(
        target,
        list?.instances.find((i) => i.id === instanceId),
      );
    };

    /**
     * Starts recording from this moment: `first` is output the session already printed that
     * belongs in the record. Listening starts in this tick, so no byte falls between `first` and
     * what follows while the header is looked up.
     */
    const begin = (sessionId: string, kind: LogKind, target: ConnectTarget, first: readonly Buffer[], timestamps: boolean): Running => {
      const s = settings.get().sessionLog;
      const size = engine.sessions.sizeOf?.(sessionId) ?? { cols: 80, rows: 24 };
      const r: Running = {
        log: null,
        held: [...first],
        heldBytes: first.reduce((n, c) => n + c.length, 0),
        ready: subjectOf(target).then((subject) => {
          const log = Recording.open(subject, {
            text: kind === 'text' ? { timestamps } : false,
            cast: kind === 'cast' ? {} : false,
            naming: { folder: s.folder, pattern: s.namePattern },
            ...size,
          });
          log.begin();
          for (const chunk of r.held) log.write(chunk);
          r.held = [];
          r.log = log;
          return log;
        }),
      };
      // A file that cannot be opened is reported by log.start; the session itself goes on.
      r.ready.catch(() => logs.drop(sessionId, kind, r));
      logs.add(sessionId, kind, r);
      return r;
    };

    // Settings › Session logs "every session", or a tab reconnecting with its records on (the
    // open's `log`): they start as the session becomes this window's, with what it printed while
    // opening (the motd, "Last login", the first prompt), not one round trip later when the window
    // asks (by then that first screen has gone by).
    onSessionOpened?.((sessionId, early, asked) => {
      const s = settings.get().sessionLog;
      const kinds = new Set<LogKind>([...(s.always ? kindsOf(s) : []), ...(asked.log ? (asked.log.kinds ?? ['text']) : [])]);
      const target = kinds.size ? engine.sessions.targetOf?.(sessionId) : undefined;
      if (!target) return;
      for (const kind of kinds) if (!logs.get(sessionId, kind)) begin(sessionId, kind, target, early, asked.log?.timestamps ?? s.timestamps);
    });

    const folder = () => folderOf(settings.get().sessionLog.folder);

    return {
      async 'log.start'({ sessionId, timestamps, kind }) {
        // Only a session this window owns: another window's output is not this one's to record.
        const target = ownsSession(sessionId) ? engine.sessions.targetOf?.(sessionId) : undefined;
        if (!target) throw new AppError('SESSION_CLOSED', `Session ${sessionId} is not open.`, 'Reconnect, then turn the log on again.');
        const running = logs.get(sessionId, kind);
        if (running) {
          const log = await running.ready.catch(() => null);
          if (log) return { path: log.paths[0]! };
          logs.drop(sessionId, kind, running); // its file could not be opened: try again, and say why if it fails
        }
        // Turned on by hand: the record starts now, as the person expects (not with the screen before).
        const log = await begin(sessionId, kind, target, [], timestamps ?? settings.get().sessionLog.timestamps).ready;
        return { path: log.paths[0]! };
      },
      async 'log.stop'({ sessionId, kind }) {
        if (!ownsSession(sessionId)) return { path: null };
        return { path: await logs.stop(sessionId, kind) };
      },
      'logs.list'() {
        const f = folder();
        return { folder: f, entries: listLogs(f) };
      },
      'logs.read'({ file }) {
        const kind = kindOfLog(file) ?? 'text';
        const { text, truncated } = readLog(folder(), file, LOG_READ_LIMIT[kind]);
        return { file, kind, text, truncated };
      },
      'logs.reveal'({ file }) {
        return { path: logPathOf(folder(), file), revealed: false };
      },
    };
  };
}
