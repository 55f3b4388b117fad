import { AppError } from '../../common/errors.js';
import { resolveTarget } from '../aws/resolve.js';
import { awsScopeFrom, type AwsFlags } from './awsFlags.js';
import { nameFromArgs } from './nameArg.js';
import { printJson, progressLine, withJsonErrors } from './output.js';
import { escapeControls } from '../../common/safeText.js';

// What `tagssh resolve` does once its arguments are parsed, shared by the commander command
// (commands/resolve.ts) and the commander-free fast path (resolveMain.ts).

export interface ResolveFlags extends AwsFlags {
  private?: boolean;
  start?: boolean;
  pick?: string;
  port?: number;
  json?: boolean;
  nameB64?: string;
}

/** The options of `tagssh resolve` in node:util parseArgs form (the fast path's parser). */
export const RESOLVE_ARGS = {
  private: { type: 'boolean' },
  start: { type: 'boolean' },
  pick: { type: 'string' },
  port: { type: 'string' },
  json: { type: 'boolean' },
  'name-b64': { type: 'string' },
  profile: { type: 'string' },
  region: { type: 'string', multiple: true },
} as const;

/** A TCP port 1-65535, or undefined when `v` is not one. */
export function portNumber(v: string): number | undefined {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : undefined;
}

export async function runResolve(rawName: string | undefined, flags: ResolveFlags): Promise<void> {
  await withJsonErrors(flags.json, async () => {
    const name = nameFromArgs(rawName, flags.nameB64);
    if (flags.port !== undefined && portNumber(String(flags.port)) === undefined) {
      throw new AppError('INVALID_INPUT', `--port ${flags.port} is not a port number.`, 'Use 1-65535, e.g. --port 2222.');
    }
    const progress = progressLine();
    const target = await resolveTarget(name, {
      ...awsScopeFrom(flags),
      ...(flags.private ? { private: true } : {}),
      ...(flags.start ? { start: true } : {}),
      ...(flags.pick ? { pick: flags.pick } : {}),
      ...(flags.port ? { port: flags.port } : {}),
      // Plain output is just the address: no need to ask EC2 whether it is an Elastic IP.
      ...(flags.json ? {} : { exactAddressKind: false }),
      onProgress: progress,
    });
    progress.done();
    if (flags.json) printJson(target);
    // The address comes from the EC2 endpoint, which is not trusted to be well-behaved.
    else process.stdout.write(`${escapeControls(target.address)}\n`);
  });
}
