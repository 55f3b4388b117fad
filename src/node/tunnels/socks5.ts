import type { Socket } from 'node:net';

// The server side of SOCKS5 (RFC 1928) as a dynamic tunnel needs it: no authentication, CONNECT
// only, destinations as IPv4, IPv6 or a domain name (resolved by the SSH server, as `ssh -D`
// does). The maintained npm SOCKS packages are clients; the server-side packages are unmaintained,
// so this is the small part we need, with strict parsing: anything malformed closes the socket.

const SOCKS_VERSION = 5;
const NO_AUTH = 0x00;
const NO_ACCEPTABLE_METHOD = 0xff;
const CMD_CONNECT = 0x01;
const ATYP_IPV4 = 0x01;
const ATYP_DOMAIN = 0x03;
const ATYP_IPV6 = 0x04;

export const SocksReply = {
  succeeded: 0x00,
  generalFailure: 0x01,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
} as const;

export type Parsed<T> = { kind: 'more' } | { kind: 'bad'; reason: string; reply?: number } | ({ kind: 'ok'; used: number } & T);

/** The client's greeting: VER NMETHODS METHODS… */
export function parseGreeting(buf: Buffer): Parsed<{ noAuth: boolean }> {
  if (buf.length < 2) return { kind: 'more' };
  if (buf[0] !== SOCKS_VERSION) return { kind: 'bad', reason: `not SOCKS5 (version byte ${buf[0]})` };
  const n = buf[1]!;
  if (n === 0) return { kind: 'bad', reason: 'no authentication methods offered' };
  if (buf.length < 2 + n) return { kind: 'more' };
  const methods = buf.subarray(2, 2 + n);
  return { kind: 'ok', used: 2 + n, noAuth: methods.includes(NO_AUTH) };
}

/** The CONNECT request: VER CMD RSV ATYP DST.ADDR DST.PORT */
export function parseRequest(buf: Buffer): Parsed<{ host: string; port: number }> {
  if (buf.length < 4) return { kind: 'more' };
  if (buf[0] !== SOCKS_VERSION) return { kind: 'bad', reason: `not SOCKS5 (version byte ${buf[0]})`, reply: SocksReply.generalFailure };
  if (buf[2] !== 0) return { kind: 'bad', reason: 'reserved byte is not zero', reply: SocksReply.generalFailure };
  if (buf[1] !== CMD_CONNECT) return { kind: 'bad', reason: `command ${buf[1]} is not supported (CONNECT only)`, reply: SocksReply.commandNotSupported };
  const atyp = buf[3];
  let host: string;
  let at: number;
  if (atyp === ATYP_IPV4) {
    if (buf.length < 4 + 4 + 2) return { kind: 'more' };
    host = [...buf.subarray(4, 8)].join('.');
    at = 8;
  } else if (atyp === ATYP_IPV6) {
    if (buf.length < 4 + 16 + 2) return { kind: 'more' };
    const groups: string[] = [];
    for (let i = 0; i < 8; i++) groups.push(buf.readUInt16BE(4 + i * 2).toString(16));
    host = groups.join(':');
    at = 20;
  } else if (atyp === ATYP_DOMAIN) {
    if (buf.length < 5) return { kind: 'more' };
    const len = buf[4]!;
    if (len === 0) return { kind: 'bad', reason: 'empty domain name', reply: SocksReply.generalFailure };
    if (buf.length < 5 + len + 2) return { kind: 'more' };
    host = buf.subarray(5, 5 + len).toString('latin1');
    // A name with control bytes or spaces is no host name; refuse it rather than pass it on.
    if (!/^[\x21-\x7e]+$/.test(host)) return { kind: 'bad', reason: 'domain name has bytes that are not printable ASCII', reply: SocksReply.generalFailure };
    at = 5 + len;
  } else return { kind: 'bad', reason: `address type ${atyp} is not supported`, reply: SocksReply.addressTypeNotSupported };
  const port = buf.readUInt16BE(at);
  if (port === 0) return { kind: 'bad', reason: 'port 0', reply: SocksReply.generalFailure };
  return { kind: 'ok', used: at + 2, host, port };
}

/** The reply to a request; the bound address is not meaningful through SSH, so it is 0.0.0.0:0. */
export function replyBytes(code: number): Buffer {
  return Buffer.from([SOCKS_VERSION, code, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0]);
}

/**
 * Runs the handshake on a fresh socket up to the CONNECT request. Resolves with the destination;
 * the caller answers with `replyBytes` once it knows whether the destination answered. Rejects
 * (after closing the socket) on malformed input, an unsupported request or `timeoutMs` of silence.
 * Bytes the client sent after the request are put back on the socket.
 */
export function socksHandshake(socket: Socket, timeoutMs = 10_000): Promise<{ host: string; port: number }> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    let stage: 'greeting' | 'request' = 'greeting';
    const timer = setTimeout(() => fail('no SOCKS request in time'), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onClose);
    };
    const fail = (reason: string, reply?: Buffer) => {
      cleanup();
      if (reply && socket.writable) socket.end(reply);
      else socket.destroy();
      reject(new Error(`SOCKS: ${reason}`));
    };
    const onClose = () => fail('the client went away');
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (stage === 'greeting') {
        const g = parseGreeting(buf);
        if (g.kind === 'more') return;
        if (g.kind === 'bad') return fail(g.reason);
        if (!g.noAuth) return fail('the client offers no method without authentication', Buffer.from([SOCKS_VERSION, NO_ACCEPTABLE_METHOD]));
        socket.write(Buffer.from([SOCKS_VERSION, NO_AUTH]));
        buf = buf.subarray(g.used);
        stage = 'request';
      }
      const r = parseRequest(buf);
      if (r.kind === 'more') return;
      if (r.kind === 'bad') return fail(r.reason, r.reply !== undefined ? replyBytes(r.reply) : undefined);
      cleanup();
      socket.pause();
      const rest = buf.subarray(r.used);
      if (rest.length) socket.unshift(rest);
      resolve({ host: r.host, port: r.port });
    };
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.once('error', onClose);
  });
}
