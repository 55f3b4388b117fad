import type { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type { ClientChannel, SFTPWrapper } from 'ssh2';
import type { AppError } from '../../common/errors.js';
import type { AskPassphrase } from './auth.js';
import type { AskSecret } from './authHandler.js';
import type { ConsoleOutputSource } from './consoleFingerprints.js';
import type { KnownHostsStore } from './knownHosts.js';
import type { ConnectTarget } from './types.js';

// What an SSH connection offers and is asked (connection.ts makes one).

export interface ConnectOptions {
  askPassphrase?: AskPassphrase;
  /** Asks for a password or keyboard-interactive answers (in the tab, on the terminal); absent = keys only. */
  askSecret?: AskSecret;
  signal?: AbortSignal;
  /** Keepalive probe interval; the peer is declared dead after keepaliveCountMax intervals without an answer. */
  keepaliveMs?: number;
  keepaliveCountMax?: number;
  /** Deadline for TCP connect + handshake + auth of each hop (prompt time excluded). */
  timeoutMs?: number;
  knownHosts?: KnownHostsStore;
  /** First-contact console check; default: EC2 GetConsoleOutput for instance targets. null = off. */
  consoleOutput?: ConsoleOutputSource | null;
  /** ssh-agent path; default SSH_AUTH_SOCK (or the Windows agent); null = do not use an agent. */
  agent?: string | null;
  /** Key file from the settings, tried after the instance's key pair file. */
  settingsIdentity?: string | null;
  /** Reports each hop as it connects ("connecting to bastion …"). */
  onProgress?: (message: string) => void;
}

export interface ExecOptions {
  onStdout?(chunk: Buffer): void;
  onStderr?(chunk: Buffer): void;
  /** Pipe output into these streams, with backpressure (the SSH window closes while they are full). */
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Pipe this stream to the command's stdin (ends it when the stream ends). */
  stdinStream?: NodeJS.ReadableStream;
  signal?: AbortSignal;
  pty?: boolean;
  stdin?: string | Buffer;
}

export interface ExecResult {
  code: number | null;
  signal: string | null;
  /** Collected only when no onStdout/onStderr callback takes the stream. */
  stdout: string;
  stderr: string;
}

export interface ShellOptions {
  cols: number;
  rows: number;
  term?: string;
  /** false = a login shell without a PTY (stdin is not a terminal). Default true. */
  pty?: boolean;
}

/**
 * An interactive shell channel. Events: 'data' (Buffer; with a PTY stdout and stderr are one
 * stream), 'stderr' (Buffer; only without a PTY), 'exit' (code|null, signal|null), 'close'.
 */
export interface ShellChannel extends EventEmitter {
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  close(): void;
  /** The raw channel, for backpressure (pause/resume) and piping. */
  readonly stream: ClientChannel;
}

export interface SshConnection {
  readonly target: ConnectTarget;
  exec(cmd: string, opts?: ExecOptions): Promise<ExecResult>;
  shell(opts: ShellOptions): Promise<ShellChannel>;
  forwardOut(host: string, port: number): Promise<Duplex>;
  /** An SFTP channel (the `sftp` subsystem) on this connection; end() it when done. */
  sftp(): Promise<SFTPWrapper>;
  /** A channel running the server's `name` subsystem, as raw bytes both ways; end() it when done. */
  subsystem(name: string): Promise<Duplex>;
  /**
   * Asks the server to listen on bindAddr:bindPort (0 = a port of its choice) and hands each
   * connection to it to `onConnection`. Resolves with the bound port and a way to stop listening.
   */
  forwardIn(bindAddr: string, bindPort: number, onConnection: RemoteConnectionHandler): Promise<RemoteForward>;
  close(): void;
  readonly closed: boolean;
  /**
   * Opens another connection to the same target with the same login and host-key checks, asking
   * nobody anything (sibling.ts); the caller closes it. Absent when the route takes only one.
   */
  readonly another?: (signal?: AbortSignal) => Promise<SshConnection>;
  /**
   * The text the server sent before login (sshd's Banner: often a legal notice), as it came; empty
   * when none. Untrusted: it reaches a terminal only through `terminalLines`.
   */
  readonly banner: string;
  /** The cipher the target's hop negotiated; absent where the transport is not SSH of TagSSH's own. */
  readonly cipher?: string;
  /** Words for the user from the first hop's transport (Session Manager's CustomerMessage), '' when none. Untrusted, like `banner`. */
  readonly notice: string;
  /**
   * Asks the server for an answer now (an OpenSSH keepalive through every hop) and ends the
   * connection with `error` when none comes within `deadlineMs`: after a sleep, a dead link is
   * found in seconds instead of a whole keepalive budget. Resolves whether the server answered.
   */
  probe?(deadlineMs: number, error: AppError): Promise<boolean>;
  /** 'close' (error?: AppError): the connection ended; the error says why when it was not close(). */
  on(event: 'close', listener: (error?: AppError) => void): this;
  once(event: 'close', listener: (error?: AppError) => void): this;
  off(event: 'close', listener: (error?: AppError) => void): this;
}

/** A connection the server accepted on a remote forward: accept() opens its channel. */
export type RemoteConnectionHandler = (accept: () => Duplex, reject: () => void, from: { address: string; port: number }) => void;

export interface RemoteForward {
  readonly port: number;
  close(): void;
}
