import { AppError } from '../../../../common/errors.js';
import { resolveTarget } from '../../../aws/instances/resolve.js';
import { awsScopeFrom } from '../../awsFlags.js';
import { nameFromArgs } from '../../nameArg.js';
import { printJson, progressLine, withJsonErrors } from '../../output.js';
import { escapeControls } from '../../../../common/safeText.js';
import { portNumber } from '../../portNumber.js';
import type { ResolveFlags } from './flags.js';

// What `tagssh resolve` does once its arguments are parsed, shared by the commander command
// (register.ts) and the commander-free fast path (main.ts).

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
