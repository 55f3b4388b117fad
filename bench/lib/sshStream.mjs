// What the transport rows share: logging ssh2 in over a given socket, and streaming bytes to time
// them (the lab they log in to: sshLab.mjs).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** An ssh2 client logged in to the lab sshd `host` over `sock`, trusting only that host's keys. */
export function login(Client, sock, host, key) {
  const known = new Set(host.hostKeys.map((k) => k.publicKey.split(' ')[1]));
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.once('ready', () => resolve(c));
    c.once('error', reject);
    c.connect({
      sock,
      username: host.user,
      privateKey: readFileSync(key.privatePath),
      hostVerifier: (blob) => known.has(blob.toString('base64')),
      readyTimeout: 20_000,
    });
  });
}

/** Streams `bytes` of zeros from the server; resolves with MiB/s from first byte to end, and the digest to compare. */
export function stream(client, bytes) {
  return new Promise((resolve, reject) => {
    client.exec(`head -c ${bytes} /dev/zero`, (err, ch) => {
      if (err) return reject(err);
      const h = createHash('sha256');
      let got = 0;
      let first = 0;
      ch.on('data', (d) => {
        if (!first) first = performance.now();
        got += d.length;
        h.update(d);
      });
      ch.stderr.resume();
      ch.on('close', () => {
        const ms = performance.now() - first;
        if (got !== bytes) return reject(new Error(`got ${got} of ${bytes} bytes`));
        resolve({ mibps: bytes / 1048576 / (ms / 1000), digest: h.digest('hex') });
      });
    });
  });
}
