import { parseArgs } from 'node:util';
import { portNumber } from '../../portNumber.js';
import { runResolve } from './action.js';
import { RESOLVE_ARGS, type ResolveFlags } from './flags.js';
import { reportError } from '../../report.js';

// The `tagssh resolve` fast path, bundled on its own (dist/cli/tagssh-resolve.mjs): Node's own
// parseArgs instead of commander, one module instead of a dozen chunks. Measured on the shared
// build machine this halves what `tagssh resolve` costs over bare `node` + one request. Anything
// it does not handle plainly (--help, a usage error, an unknown option) returns undefined, and
// bin/tagssh.mjs hands the same argv to the full commander CLI, so help and usage errors read
// exactly the same either way.

/** Runs `tagssh resolve …` and returns its exit code, or undefined to defer to the full CLI. */
export async function fastResolve(argv: string[]): Promise<number | undefined> {
  const args = argv.slice(3); // node, bin, "resolve", …
  if (args.some((a) => a === '-h' || a === '--help')) return undefined;
  let parsed;
  try {
    parsed = parseArgs({ args, options: RESOLVE_ARGS, allowPositionals: true, strict: true });
  } catch {
    return undefined;
  }
  const { values: v, positionals } = parsed;
  if (positionals.length > 1) return undefined;
  const flags: ResolveFlags = {};
  if (v.private) flags.private = true;
  if (v.start) flags.start = true;
  if (v.json) flags.json = true;
  if (v.pick !== undefined) flags.pick = v.pick;
  if (v['name-b64'] !== undefined) flags.nameB64 = v['name-b64'];
  if (v.profile !== undefined) flags.profile = v.profile;
  if (v.region !== undefined) flags.region = v.region;
  if (v.port !== undefined) {
    const port = portNumber(v.port);
    if (port === undefined) return undefined; // commander words the usage error
    flags.port = port;
  }
  try {
    await runResolve(positionals[0], flags);
    return 0;
  } catch (e) {
    return reportError(e, argv.includes('--debug'));
  }
}
