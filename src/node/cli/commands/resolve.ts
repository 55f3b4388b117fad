import { InvalidArgumentError, type Command } from 'commander';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from '../options.js';

// `tagssh resolve NAME`: prints only the address on stdout, so `ssh user@$(tagssh resolve web)`
// and TeraTerm macros can use it. The engine is imported inside the action: this is the command
// whose start-up time is benchmarked.

interface ResolveFlags extends AwsFlags {
  private?: boolean;
  start?: boolean;
  pick?: string;
  port?: number;
  json?: boolean;
  nameB64?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('resolve')
    .description('print the address of the running instance with this exact Name tag (or instance id)')
    .argument('[name]', 'Name tag value (exact, case-sensitive) or instance id i-…')
    .option('--private', 'print the private IP instead of the public/Elastic IP')
    .option('--start', 'if the instance is stopped, start it and wait until its SSH port answers')
    .option('--pick <id>', 'choose this instance id when several match the name')
    .option('--port <port>', 'port that must answer after --start (default: tag tagssh:port, else 22)', (v) => parsePort(v))
    .option('--json', 'print {address, addressKind, instance} as JSON')
    .option('--name-b64 <base64url>', 'the Name as base64url of its UTF-8 bytes, instead of NAME (used by exported TeraTerm macros)');
  addAwsOptions(cmd).action(async (rawName: string | undefined, flags: ResolveFlags) => {
    const { withJsonErrors, progressLine, printJson } = await import('../output.js');
    await withJsonErrors(flags.json, async () => {
      const { nameFromArgs } = await import('../nameArg.js');
      const name = nameFromArgs(rawName, flags.nameB64);
      const { resolveTarget } = await import('../../aws/resolve.js');
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
      else process.stdout.write(`${target.address}\n`);
    });
  });
}

export function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    // Commander reports this as a usage error (exit code 2).
    throw new InvalidArgumentError('expected a port number 1-65535');
  }
  return n;
}
