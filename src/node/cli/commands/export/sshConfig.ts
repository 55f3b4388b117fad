import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppError } from '../../../../common/errors.js';
import { exportSshConfig } from '../../../../common/export/generate.js';
import { hostAliasesOutsideBlock } from '../../../../common/export/sshConfig.js';
import type { Instance } from '../../../../common/model/instance.js';
import { escapeControls } from '../../../../common/safeText.js';
import { shQuote } from '../../../../common/shell.js';
import { writeSshConfigBlock } from '../../../export/files.js';
import { selectInstances } from '../../../export/select.js';
import { tagsshSelfCommand } from '../../../export/selfCommand.js';
import { knownHostsPath } from '../../../ssh/knownHosts.js';
import { displayWidth, padColumns } from '../../output.js';
import type { SshConfigFlags } from './flags.js';
import { exportSettings, loadInstances, loginUsers } from './inputs.js';

// `tagssh export ssh-config`: the managed "# BEGIN tagssh" block in an OpenSSH config (one Host
// per instance through `tagssh proxy`), the host keys OpenSSH already trusted carried over, and
// the Name → alias mapping on stderr.

type Mapping = ReturnType<typeof exportSshConfig>['mapping'];

/** A Name as shown in the mapping: quoted, every control made visible. */
const shownName = (name: string | null) => (name === null ? '(no Name)' : escapeControls(JSON.stringify(name)));

export async function exportSshConfigCommand(names: string[], flags: SshConfigFlags): Promise<void> {
  const file = flags.file ?? join(homedir(), '.ssh', 'config');
  let current: string;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = ''; // no config yet: nothing to avoid
  }
  if (flags.identity) await checkIdentity(flags.identity);
  const instances = selectInstances(await loadInstances(flags), names, !!flags.all);
  const settings = await exportSettings();
  const users = await loginUsers(instances, flags, settings);
  // The app's export and this one come from one generator with the same Settings: key file, jump host, port, users.
  const hosts = {
    userOf: (i: Instance) => users.get(i.id)?.user,
    keyPairFileOf: (i: Instance) => users.get(i.id)?.keyPairFile,
    ...(settings ? { settings } : {}),
    // ssh reads a relative IdentityFile against its own working directory: pin it now.
    ...(flags.identity ? { identityFile: /^[~%/]/.test(flags.identity) ? flags.identity : resolve(flags.identity) } : {}),
    ...(flags.jump ? { jump: flags.jump } : {}),
  };
  const { text, mapping } = exportSshConfig(instances, hosts, {
    ...(flags.profile ? { profile: flags.profile } : {}),
    ...(flags.start ? { startOnConnect: true } : {}),
    ...(flags.private ? { private: true } : {}),
    reservedAliases: hostAliasesOutsideBlock(current),
    tagsshCommand: tagsshSelfCommand(),
    knownHostsFile: knownHostsPath(),
    exportedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  });
  const result = writeSshConfigBlock(file, text, { dryRun: !!flags.dryRun });
  if (!flags.dryRun) await carryOverKeys(instances);
  if (flags.dryRun) process.stdout.write(`${text}\n`);
  const where = escapeControls(result.path);
  if (flags.dryRun) process.stderr.write(`Dry run: ${where} ${result.changed ? 'would change' : 'is already up to date'}.\n`);
  else if (!result.changed) process.stderr.write(`${where} is already up to date.\n`);
  else process.stderr.write(`Updated ${where}${result.backup ? ` (previous version: ${escapeControls(result.backup)})` : ''}.\n`);
  printMapping(mapping);
  const config = flags.file ? ` -F ${escapeControls(/^[\w./:@%+=,-]+$/.test(flags.file) ? flags.file : shQuote(flags.file))}` : '';
  process.stderr.write(
    `Connect with: ssh${config} ${mapping[0]?.alias ?? '<alias>'}  (host keys are checked against ${escapeControls(knownHostsPath())}: a new key is trusted when the console output vouches for it, else confirm it once with \`tagssh ssh NAME --accept-new\`)\n`,
  );
}

/** ssh reads the key later; a directory, a pipe or a device is a mistake to report now. */
async function checkIdentity(identity: string): Promise<void> {
  const { keyFileProblem, expandHome } = await import('../../../ssh/auth.js');
  const local = expandHome(identity);
  const problem = existsSync(local) ? keyFileProblem(local, '--identity') : null;
  if (problem) throw new AppError('EXPORT_INVALID', problem.message, 'Pass --identity with the path of your private key file, e.g. ~/.ssh/id_ed25519.');
}

/** Keys OpenSSH already trusts for these instances (earlier exports) move into TagSSH's store, which the block now points to. */
async function carryOverKeys(instances: Instance[]): Promise<void> {
  const { KnownHostsStore, carryOverOpenSshKeys } = await import('../../../ssh/knownHosts.js');
  const { sshDir } = await import('../../../ssh/sshPaths.js');
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

/** Name → Host alias on stderr, in columns by East Asian width: 踏み台 takes six columns, not three. */
function printMapping(mapping: Mapping): void {
  process.stderr.write('Name → Host alias:\n');
  const nameWidth = Math.max(...mapping.map((m) => displayWidth(shownName(m.name))));
  const aliasWidth = Math.max(...mapping.map((m) => displayWidth(m.alias)));
  const why = {
    duplicate: ', name shared or taken: id suffix added',
    unusable: ', nothing ssh can use in the Name: the id is the alias',
    'no-name': ', no Name tag',
  } as const;
  for (const m of mapping) {
    process.stderr.write(
      `  ${padColumns(shownName(m.name), nameWidth)}  →  ${padColumns(m.alias, aliasWidth)}  (${m.instanceId}${m.note && m.note !== 'changed' ? why[m.note] : ''})\n`,
    );
  }
}
