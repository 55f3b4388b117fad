import { Option, type Command } from 'commander';
import type { Instance } from '../../../common/model/instance.js';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from '../options.js';
import { escapeControls } from '../../../common/safeText.js';
import { shQuote } from '../../../common/shell.js';
import { AppError } from '../../../common/errors.js';

/** A Name as shown in the mapping: quoted, every control made visible. */
const shownName = (name: string | null) => (name === null ? '(no Name)' : escapeControls(JSON.stringify(name)));

// `tagssh export teraterm|ssh-config`: files that keep working after an instance's IP changes.
// TeraTerm macros resolve the Name when they run (or bake today's address with --static); the
// ssh config goes through `tagssh proxy` and pins host keys to the instance id.

interface TeraTermCliFlags extends AwsFlags {
  all?: boolean;
  static?: boolean;
  user?: string;
  keyfile?: string;
  askPassphrase?: boolean;
  auth?: 'publickey' | 'pageant' | 'password' | 'challenge';
  out?: string;
  helper?: 'tagssh' | 'aws';
  private?: boolean;
  menu?: boolean;
  tagsshPath?: string;
}

interface SshConfigCliFlags extends AwsFlags {
  all?: boolean;
  user?: string;
  identity?: string;
  jump?: string;
  file?: string;
  dryRun?: boolean;
  start?: boolean;
  private?: boolean;
}

async function loadInstances(flags: AwsFlags) {
  const { listInstances } = await import('../../aws/inventory.js');
  return listInstances(awsScopeFrom(flags), { useCache: 'refresh' });
}

/** Login users as `tagssh ssh` picks them (flag, tag, AMI family, settings, ec2-user), by instance id. */
async function loginUsers(instances: readonly Instance[], flags: AwsFlags & { user?: string }): Promise<Map<string, string>> {
  const { loginUserFor, describeImage } = await import('../../ssh/users.js');
  const { existsSync } = await import('node:fs');
  let settingsUser: string | null = null;
  const { settingsPath, jsonSettingsStore } = await import('../../store/settings.js');
  if (existsSync(settingsPath())) settingsUser = jsonSettingsStore().get().defaultUser;
  const scope = awsScopeFrom(flags);
  const pairs = await Promise.all(
    instances.map(async (i) => {
      const { user } = await loginUserFor({
        instance: i,
        ...(flags.user ? { flagUser: flags.user } : {}),
        settingsUser,
        lookupImage: (imageId) => describeImage(scope, i.region, imageId),
      });
      return [i.id, user] as const;
    }),
  );
  return new Map(pairs);
}

export function register(program: Command): void {
  const exp = program.command('export').description('export TeraTerm macros or an OpenSSH config that resolve instances by Name tag');

  const tt = exp
    .command('teraterm')
    .description('write Tera Term macros (.ttl): one per instance, plus a menu macro when there are several')
    .argument('[names...]', 'Name tags (exact) or instance ids')
    .option('--all', 'every instance in the profile/region(s)')
    .option('--static', "bake today's address in (default: look it up each time the macro runs)")
    .option('--user <user>', 'login user (default: tag tagssh:user, else guessed from the platform)')
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
    .option('--out <dir>', 'directory for the .ttl files', '.');
  addAwsOptions(tt).action(async (names: string[], flags: TeraTermCliFlags) => {
    const { teraTermMacro, teraTermMenuMacro, teraTermFileNames } = await import('../../../common/export/teraterm.js');
    const { teraTermHostsFrom } = await import('../../../common/export/fromInstances.js');
    const { selectInstances, keyLooksEncrypted } = await import('../../export/select.js');
    const { writeExportFiles } = await import('../../export/files.js');
    const instances = selectInstances(await loadInstances(flags), names, !!flags.all);
    const users = await loginUsers(instances, flags);
    const hosts = teraTermHostsFrom(instances, {
      userOf: (i) => users.get(i.id),
      ...(flags.keyfile ? { keyFile: flags.keyfile } : {}),
      keyHasPassphrase: !!flags.askPassphrase || (flags.keyfile ? keyLooksEncrypted(flags.keyfile) === true : false),
      ...(flags.auth ? { auth: flags.auth } : {}),
      ...(flags.private ? { private: true } : {}),
    });
    const opts = {
      mode: flags.static ? ('static' as const) : ('dynamic' as const),
      helper: flags.helper === 'aws' ? ('aws-cli' as const) : ('tagssh' as const),
      profile: flags.profile ?? null,
      private: !!flags.private,
      exportedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      ...(flags.tagsshPath ? { tagsshPath: flags.tagsshPath } : {}),
    };
    const fileNames = teraTermFileNames(hosts);
    const files = hosts.map((h, i) => teraTermMacro(h, opts, fileNames[i]));
    if (hosts.length > 1 && flags.menu !== false) files.push(teraTermMenuMacro(hosts, opts));
    for (const p of writeExportFiles(flags.out ?? '.', files)) process.stdout.write(`${escapeControls(p)}\n`);
    if (opts.mode === 'dynamic' && opts.helper === 'tagssh' && !flags.tagsshPath) {
      process.stderr.write(
        'Note: the macros run `tagssh resolve` from PATH on the machine where Tera Term runs. If tagssh is not on PATH there, export again with --tagssh-path C:\\path\\to\\tagssh.cmd (or --helper aws, or --static).\n',
      );
    }
  });

  const sc = exp
    .command('ssh-config')
    .description('write a managed "# BEGIN tagssh" block into an OpenSSH config: one Host per instance via `tagssh proxy`')
    .argument('[names...]', 'Name tags (exact) or instance ids')
    .option('--all', 'every instance in the profile/region(s)')
    .option('--user <user>', 'login user (default: tag tagssh:user, else guessed from the platform)')
    .option('--identity <file>', 'IdentityFile for every host')
    .option('--jump <host>', 'reach the instances on their private IPs through this jump host (an exported Name or [user@]host[:port])')
    .option('--start', 'connecting starts a stopped instance and waits for it (tagssh proxy --start)')
    .option('--private', 'connect to the private IPs (over a VPN): tagssh proxy --private')
    .option('--file <path>', 'config file to update (default: ~/.ssh/config)')
    .option('--dry-run', 'print the new block and the alias mapping; change nothing');
  addAwsOptions(sc).action(async (names: string[], flags: SshConfigCliFlags) => {
    const { homedir } = await import('node:os');
    const { join, resolve } = await import('node:path');
    const { readFileSync } = await import('node:fs');
    const { sshConfigBlock, hostAliasesOutsideBlock } = await import('../../../common/export/sshConfig.js');
    const { sshConfigHostsFrom } = await import('../../../common/export/fromInstances.js');
    const { selectInstances } = await import('../../export/select.js');
    const { writeSshConfigBlock } = await import('../../export/files.js');
    const { tagsshSelfCommand } = await import('../../export/selfCommand.js');
    const { knownHostsPath } = await import('../../ssh/knownHosts.js');
    const file = flags.file ?? join(homedir(), '.ssh', 'config');
    let current: string;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      current = ''; // no config yet: nothing to avoid
    }
    if (flags.identity) {
      // ssh reads the key later; a directory, a pipe or a device is a mistake to report now.
      const { existsSync } = await import('node:fs');
      const { keyFileProblem, expandHome } = await import('../../ssh/auth.js');
      const local = expandHome(flags.identity);
      const problem = existsSync(local) ? keyFileProblem(local, '--identity') : null;
      if (problem) throw new AppError('EXPORT_INVALID', problem.message, 'Pass --identity with the path of your private key file, e.g. ~/.ssh/id_ed25519.');
    }
    const instances = selectInstances(await loadInstances(flags), names, !!flags.all);
    const users = await loginUsers(instances, flags);
    const hosts = sshConfigHostsFrom(instances, {
      userOf: (i) => users.get(i.id),
      // ssh reads a relative IdentityFile against its own working directory: pin it now.
      ...(flags.identity ? { identityFile: /^[~%/]/.test(flags.identity) ? flags.identity : resolve(flags.identity) } : {}),
      ...(flags.jump ? { jump: flags.jump } : {}),
    });
    const { text, mapping } = sshConfigBlock(hosts, {
      ...(flags.profile ? { profile: flags.profile } : {}),
      ...(flags.start ? { startOnConnect: true } : {}),
      ...(flags.private ? { private: true } : {}),
      reservedAliases: hostAliasesOutsideBlock(current),
      tagsshCommand: tagsshSelfCommand(),
      knownHostsFile: knownHostsPath(),
      exportedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    });
    const result = writeSshConfigBlock(file, text, { dryRun: !!flags.dryRun });
    if (!flags.dryRun) {
      // Keys OpenSSH already trusts for these instances (earlier exports) move into TagSSH's store, which the block now points to.
      const { KnownHostsStore, carryOverOpenSshKeys } = await import('../../ssh/knownHosts.js');
      const { sshDir } = await import('../../ssh/sshPaths.js');
      const opensshFile = join(sshDir(), 'known_hosts');
      const carried = carryOverOpenSshKeys(new KnownHostsStore(), opensshFile, instances);
      if (carried.added.length)
        process.stderr.write(`Carried over the host keys OpenSSH already trusted for ${carried.added.join(', ')} from ${escapeControls(opensshFile)}.\n`);
      for (const id of carried.conflicts) {
        process.stderr.write(
          `Warning: ${escapeControls(opensshFile)} holds a different host key for ${id} than TagSSH trusts; TagSSH's is kept, and ssh will refuse the other. If the instance was rebuilt: tagssh forget-host-key ${id}\n`,
        );
      }
    }
    if (flags.dryRun) process.stdout.write(`${text}\n`);
    const where = escapeControls(result.path);
    if (flags.dryRun) process.stderr.write(`Dry run: ${where} ${result.changed ? 'would change' : 'is already up to date'}.\n`);
    else if (!result.changed) process.stderr.write(`${where} is already up to date.\n`);
    else process.stderr.write(`Updated ${where}${result.backup ? ` (previous version: ${escapeControls(result.backup)})` : ''}.\n`);
    process.stderr.write('Name → Host alias:\n');
    const nameWidth = Math.max(...mapping.map((m) => shownName(m.name).length));
    for (const m of mapping) {
      process.stderr.write(
        `  ${shownName(m.name).padEnd(nameWidth)}  →  ${m.alias}  (${m.instanceId}${m.note === 'duplicate' ? ', name shared or taken: id suffix added' : ''})\n`,
      );
    }
    const config = flags.file ? ` -F ${escapeControls(/^[\w./:@%+=,-]+$/.test(flags.file) ? flags.file : shQuote(flags.file))}` : '';
    process.stderr.write(
      `Connect with: ssh${config} ${mapping[0]?.alias ?? '<alias>'}  (host keys are checked against ${escapeControls(knownHostsPath())}: a new key is trusted when the console output vouches for it, else confirm it once with \`tagssh ssh NAME --accept-new\`)\n`,
    );
  });
}
