import { Option, type Command } from 'commander';
import { addAwsOptions } from '../../options.js';
import type { SshConfigFlags, TeraTermFlags } from './flags.js';

// `tagssh export teraterm|ssh-config`: files that keep working after an instance's IP changes.
// TeraTerm macros resolve the Name when they run (or bake today's address with --static); the
// ssh config goes through `tagssh proxy` and pins host keys to the instance id. Each writer
// (teraterm.ts, sshConfig.ts) loads when its command runs.

export function register(program: Command): void {
  const exp = program.command('export').description('export TeraTerm macros or an OpenSSH config that resolve instances by Name tag');

  const tt = exp
    .command('teraterm')
    .description('write Tera Term macros (.ttl): one per instance, plus a menu macro when there are several')
    .argument('[names...]', 'Name tags (exact) or instance ids')
    .option('--all', 'every instance in the profile/region(s)')
    .option('--static', "bake today's address in (default: look it up each time the macro runs)")
    .option('--user <user>', "login user (default: as tagssh ssh picks it: the app's Connect as…, tag tagssh:user, Settings, the AMI's user)")
    .option('--keyfile <path>', 'absolute Windows path of the private key, e.g. C:\\Users\\me\\.ssh\\web.pem')
    .option('--ask-passphrase', 'the key has a passphrase: let TTSSH ask for it (detected when the key file is readable here)')
    .addOption(
      new Option('--auth <method>', 'TTSSH authentication (default: publickey with --keyfile, else pageant)').choices([
        'publickey',
        'pageant',
        'password',
        'challenge',
      ]),
    )
    .addOption(new Option('--helper <tool>', 'what the macro runs to look up the address').choices(['tagssh', 'aws']).default('tagssh'))
    .option('--private', 'connect to the private IP (over a VPN)')
    .option('--no-menu', 'do not write tagssh-menu.ttl')
    .option(
      '--tagssh-path <path>',
      'how the macros run TagSSH on the Windows machine, e.g. C:\\Users\\me\\AppData\\Roaming\\npm\\tagssh.cmd (default: tagssh on PATH)',
    )
    .option('--lang <lang>', "the language of the macros' message boxes, menu and header comments: en or ja (default en)")
    .option('--out <dir>', 'directory for the .ttl files', '.');
  addAwsOptions(tt).action(async (names: string[], flags: TeraTermFlags) => {
    const { exportTeraTermCommand } = await import('./teraterm.js');
    await exportTeraTermCommand(names, flags);
  });

  const sc = exp
    .command('ssh-config')
    .description('write a managed "# BEGIN tagssh" block into an OpenSSH config: one Host per instance via `tagssh proxy`')
    .argument('[names...]', 'Name tags (exact) or instance ids')
    .option('--all', 'every instance in the profile/region(s)')
    .option('--user <user>', "login user (default: as tagssh ssh picks it: the app's Connect as…, tag tagssh:user, Settings, the AMI's user)")
    .option('--identity <file>', "IdentityFile for every host (default: each instance's Connect as…, else Settings' key file)")
    .option(
      '--jump <host>',
      "reach the instances on their private IPs through this jump host (an exported Name or [user@]host[:port]; default: tag tagssh:jump, else Settings')",
    )
    .option('--start', 'connecting starts a stopped instance and waits for it (tagssh proxy --start)')
    .option('--private', 'connect to the private IPs (over a VPN): tagssh proxy --private')
    .option('--file <path>', 'config file to update (default: ~/.ssh/config)')
    // `export teraterm` names its destination --out: the same word works here.
    .option('--out <path>', 'the same as --file')
    .option('--dry-run', 'print the new block and the alias mapping; change nothing');
  addAwsOptions(sc).action(async (names: string[], flags: SshConfigFlags) => {
    if (flags.out !== undefined && flags.file !== undefined && flags.out !== flags.file)
      sc.error("error: --out and --file are the same option: give the config file's path once", { code: 'commander.conflictingOption', exitCode: 1 });
    flags.file ??= flags.out;
    const { exportSshConfigCommand } = await import('./sshConfig.js');
    await exportSshConfigCommand(names, flags);
  });
}
