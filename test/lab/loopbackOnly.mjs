// Guard for tests and benchmarks: any TCP connection to an address outside loopback fails with
// ENETUNREACH instead of leaving the machine (moto, for one, gives started instances random
// public IPs). Loaded into the test process by test/lab/moto.ts and into every process spawned
// with moto's env through NODE_OPTIONS. scripts/test.mjs adds a network namespace on top.
import net from 'node:net';

const isLoopback = (host) =>
  host === undefined ||
  host === null ||
  host === '' ||
  host === 'localhost' ||
  /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
  host === '::1' ||
  /^::ffff:127\./i.test(host);

const connect = net.Socket.prototype.connect;
if (!connect.__tagsshLoopbackOnly) {
  const guarded = function (...args) {
    let opts = args[0];
    if (Array.isArray(opts)) opts = opts[0];
    if (typeof opts !== 'object' || opts === null) opts = { port: args[0], host: typeof args[1] === 'string' ? args[1] : undefined };
    if (!opts.path && !isLoopback(opts.host)) {
      const err = Object.assign(new Error(`test guard: refused a connection to ${opts.host}:${opts.port} (only loopback is allowed in tests)`), {
        code: 'ENETUNREACH',
      });
      process.nextTick(() => this.destroy(err));
      return this;
    }
    return connect.apply(this, args);
  };
  guarded.__tagsshLoopbackOnly = true;
  net.Socket.prototype.connect = guarded;
}
