import http from 'node:http';

/** GETs / from `host:port` (a tunnel's copied address) and resolves with the body as text. */
export function httpGet(address: string): Promise<string> {
  const i = address.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    http
      .get({ host: address.slice(0, i), port: Number(address.slice(i + 1)), path: '/', agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}
