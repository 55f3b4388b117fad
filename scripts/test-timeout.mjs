// Preloaded into every test file's process by scripts/test.mjs: a test (or hook) that does not end
// within TEST_TIMEOUT_MS fails as timed out instead of holding the run until CI's own limit.
// Node 20's --test-timeout bounds a whole file, not each test (nodejs/node#50431; per test only
// from nodejs/node#57672, Node 24), so the default is given here: node:test's functions get the
// timeout in their options unless a test names its own. syncBuiltinESMExports() carries the
// wrapped functions to `import { test } from 'node:test'` as well.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const ms = Number(process.env.TEST_TIMEOUT_MS);
if (Number.isFinite(ms) && ms > 0) {
  const nodeTest = createRequire(import.meta.url)('node:test');

  /** The same function, with `timeout: ms` in its options unless they name one. */
  const bounded = (fn) => {
    const wrapped = function (...args) {
      const at = args.findIndex((a) => a !== null && typeof a === 'object');
      if (at === -1) {
        const fnAt = args.findIndex((a) => typeof a === 'function');
        args.splice(fnAt === -1 ? args.length : fnAt, 0, { timeout: ms });
      } else if (args[at].timeout === undefined) {
        args[at] = { ...args[at], timeout: ms };
      }
      return fn.apply(this, args);
    };
    return Object.assign(wrapped, fn);
  };

  // Hooks take (fn, options): the options go last.
  const boundedHook = (fn) =>
    Object.assign(function (hookFn, options = {}) {
      return fn.call(this, hookFn, options.timeout === undefined ? { ...options, timeout: ms } : options);
    }, fn);

  for (const name of ['test', 'it']) nodeTest[name] = bounded(nodeTest[name]);
  for (const name of ['before', 'after', 'beforeEach', 'afterEach']) nodeTest[name] = boundedHook(nodeTest[name]);
  // The default export is `test` itself.
  syncBuiltinESMExports();
}
