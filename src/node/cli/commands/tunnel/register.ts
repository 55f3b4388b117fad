import type { Command } from 'commander';
import { addConnectOptions } from '../../connectOptions.js';
import { collect, parseKeepaliveSeconds } from '../../flags.js';
import type { TunnelFlags } from './flags.js';

// `tagssh tunnel NAME -L … -D … -R …`: port forwards over the engine's SSH connection, kept up
// until Ctrl-C; without forwards, the tunnels saved in the app that apply to NAME (--saved picks
// some); --list shows the saved ones. The specs are checked in the action (action.ts)
// so every problem names its flag; ssh2 loads only there.

export function register(program: Command): void {
  const cmd = program
    .command('tunnel')
    .description(
      'forward ports through the instance with this Name tag (like ssh -L/-D/-R), or start the tunnels saved for it in the app; runs until Ctrl-C and reconnects after a drop',
    )
    .argument('[name]', 'Name tag value (exact, case-sensitive) or instance id i-…')
    .option(
      '-L, --local <[bind:]port:host:hostport>',
      'listen on local port (127.0.0.1 unless bind is given; 0 = any free port) and connect to host:hostport from the instance; repeatable',
      collect,
    )
    .option('-D, --dynamic <[bind:]port>', 'SOCKS5 proxy on local port; destinations are reached from the instance; repeatable', collect)
    .option(
      '-R, --remote <[bind:]port:host:hostport>',
      'the instance listens on port (its loopback unless bind is given) and connects back to host:hostport from here; repeatable',
      collect,
    )
    .option(
      '--saved <id|label>',
      "start only this saved tunnel (an id or the start of one from --list, or a label: the instance's Name or a tag's key=value); repeatable; runs beside any -L/-D/-R",
      collect,
    )
    .option('--list', 'list the saved tunnels (with NAME: those that apply to it) and what each forwards')
    .option('--json', 'with --list: print the saved tunnels as a JSON array, as the app stores them')
    .option('--pick <id>', 'choose this instance id when several match the name')
    .option(
      '--keepalive <seconds>',
      'probe the server every N seconds; 3 unanswered probes count as a drop and start a reconnect (default 15)',
      parseKeepaliveSeconds,
    );
  addConnectOptions(cmd, { acceptNewPlace: 'to trust a new host key without one, put --accept-new after NAME and the forwards' }).action(
    async (name: string | undefined, flags: TunnelFlags) => {
      const { runTunnel } = await import('./action.js');
      process.exitCode = await runTunnel(name, flags);
    },
  );
  cmd.addHelpText(
    'after',
    `
Without -L/-D/-R, the tunnels saved in the app's Tunnels tab that apply to NAME run: those saved for
the instance and those saved for a tag it carries (as EC2 reports its tags now). With -L/-D/-R only
those forwards run, unless --saved names saved tunnels to run beside them.

Examples:
  tagssh tunnel web -L 5432:db.internal:5432 -D 1080
  tagssh tunnel web                        the saved tunnels that apply to web
  tagssh tunnel web --saved env=staging    only those saved for the tag env=staging
  tagssh tunnel --list [web]               the saved tunnels (those for web) with their ids
  tagssh tunnel --list web --json          the same as JSON (an empty array when none applies)`,
  );
}
