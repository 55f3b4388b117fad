import { InvalidArgumentError, type Command } from 'commander';
import type { ReplayFlags } from './flags.js';

// `tagssh replay FILE.cast`: plays a recording (`tagssh ssh --record`, the app's recordings, or
// any asciicast v2 file) in this terminal with its timing; space pauses, q quits.

function positive(max: number, what: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!(n > 0 && n <= max)) throw new InvalidArgumentError(`expected ${what} above 0 and at most ${max}`);
    return n;
  };
}

export function register(program: Command): void {
  program
    .command('replay')
    .description('play a session recording (asciicast v2 .cast) in this terminal, with its timing')
    .argument('<file>', 'the .cast file')
    .option('-s, --speed <factor>', 'play faster (2) or slower (0.5)', positive(1000, 'a factor'))
    .option('-i, --idle-time-limit <seconds>', 'shorten every pause longer than this', positive(3600, 'seconds'))
    .action(async (file: string, flags: ReplayFlags) => {
      const { replay } = await import('./action.js');
      process.exitCode = await replay(file, flags);
    });
}
