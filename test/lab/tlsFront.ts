import { spawnSync } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';

// An https endpoint in front of moto (which speaks plain http), with a self-signed certificate
// for 127.0.0.1 made by openssl. Clients trust it through AWS_CA_BUNDLE, as behind a corporate
// TLS-inspecting proxy; it lets tests send EC2 traffic through CONNECT tunnels.

export interface TlsFront {
  endpoint: string;
  /** PEM file of the certificate (for AWS_CA_BUNDLE). */
  caFile: string;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 made by openssl in `dir`: its PEM texts and the cert's file (for AWS_CA_BUNDLE). */
export function loopbackCertificate(dir: string, name: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.pem`);
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

export async function startTlsFront(upstream: string, dir: string): Promise<TlsFront> {
  const { key, cert, certFile } = loopbackCertificate(dir, 'front');
  const target = new URL(upstream);
  const server = https.createServer({ key, cert }, (req, res) => {
    const up = http.request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (ures) => {
      res.writeHead(ures.statusCode ?? 502, ures.headers);
      ures.pipe(res);
    });
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `https://127.0.0.1:${port}`,
    caFile: certFile,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
