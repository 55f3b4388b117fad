import { AppError } from '../../common/errors.js';
import type { SessionPort } from '../service/types.js';
import type { ConnectTarget } from '../ssh/types.js';
import { FileSession } from './index.js';

// The file panel's SFTP channels, one per terminal session of one UI connection: each rides on
// its session's pooled SSH connection (SessionManager.acquire with the session's own target: a
// new channel, no new handshake) and is let go when the session closes.

type PoolPort = Required<Pick<SessionPort, 'targetOf' | 'acquire' | 'list'>>;

export function poolOf(sessions: SessionPort): PoolPort {
  if (!sessions.targetOf || !sessions.acquire || !sessions.list) throw new AppError('INTERNAL', 'This backend cannot open files on a session.');
  return sessions as SessionPort & PoolPort;
}

const sessionGone = (id: string) => new AppError('SESSION_CLOSED', `Session ${id} is not open.`, 'Reconnect the terminal tab, then open its files again.');

export class PanelChannels {
  private readonly channels = new Map<string, Promise<FileSession>>();
  private watching = false;
  // A session that closes lets go of its SFTP channel, so the pooled connection can close with its last tab.
  private readonly onSessionClosed = (id: string) => this.drop(id);

  constructor(
    private readonly sessions: SessionPort,
    /** Whether this UI connection opened the session. */
    private readonly ownsSession: (sessionId: string) => boolean,
  ) {}

  /** The target of a session this window opened (another window's session is not this panel's to touch). */
  targetOf(pool: PoolPort, sessionId: string): ConnectTarget {
    const target = this.ownsSession(sessionId) ? pool.targetOf(sessionId) : undefined;
    if (!target) throw sessionGone(sessionId);
    return target;
  }

  /** The session's SFTP channel, opened on first use. */
  filesOf(sessionId: string): Promise<FileSession> {
    const existing = this.channels.get(sessionId);
    if (existing) return existing;
    const pool = poolOf(this.sessions);
    let target: ConnectTarget;
    try {
      target = this.targetOf(pool, sessionId);
    } catch (e) {
      return Promise.reject(e as Error);
    }
    if (!this.watching) {
      this.watching = true;
      this.sessions.on('closed', this.onSessionClosed);
    }
    const channels = this.channels;
    const opening = FileSession.acquire(pool, target).then((files) => {
      files.onClose(() => {
        if (channels.get(sessionId) === opening) channels.delete(sessionId);
      });
      return files;
    });
    channels.set(sessionId, opening);
    opening.catch(() => channels.get(sessionId) === opening && channels.delete(sessionId));
    return opening;
  }

  private drop(sessionId: string): void {
    const c = this.channels.get(sessionId);
    if (!c) return;
    this.channels.delete(sessionId);
    // Listen for closing sessions only while a channel is held (a section lives as long as its UI connection).
    if (!this.channels.size && this.watching) {
      this.watching = false;
      this.sessions.off('closed', this.onSessionClosed);
    }
    void c.then(
      (files) => files.close(),
      () => {},
    );
  }
}
