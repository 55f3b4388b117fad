import net from 'node:net';

// "Does the SSH port answer yet?": a booting instance is `running` (and has an address) well
// before sshd listens, so start-and-wait probes the port before reporting success.

/** True if a TCP connection to host:port is accepted within timeoutMs. */
export function tcpAnswers(host: string, port: number, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}
