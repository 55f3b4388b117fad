import { AppError } from '../../../../common/errors.js';
import type { ImportPlan, ImportRow, KnownHostImport } from '../../../../common/import/contract.js';
import { escapeControls } from '../../../../common/safeText.js';
import type { AwsScope } from '../../../aws/config/scope.js';
import { confirmOrYes } from '../../confirm.js';
import type { ImportFlags } from './flags.js';
import { printable, printJson, table } from '../../output.js';

// The CLI face of an import: the table of what was found and what it maps to (and why not), the
// host keys, the notes, then — once confirmed — the writes. Every name, path and host printed
// here came from files or EC2 tags: escaped on the way to the terminal.

const BY: Record<NonNullable<ImportRow['matchedBy']>, string> = {
  'public-ip': 'by public IP',
  'elastic-ip': 'by Elastic IP',
  'private-ip': 'by private IP',
  dns: 'by DNS name',
  name: 'by Name',
  'instance-id': 'by instance id',
};

const NOT_SSH: Record<string, string> = {
  telnet: 'telnet, not SSH',
  serial: 'a serial port, not SSH',
  pipe: 'a named pipe, not SSH',
  replay: 'a replay file, not SSH',
  cygwin: 'Cygwin, not SSH',
};

function reasonText(r: NonNullable<ImportRow['reason']>, regions: string[]): string {
  const d = r.detail ?? '';
  switch (r.code) {
    case 'not-ssh':
      return NOT_SSH[d] ?? 'not SSH';
    case 'unknown-host':
      return `the host is only known when it runs (${d || 'not written in the file'})`;
    case 'not-ec2':
      return 'not an EC2 address';
    case 'no-address-match':
      return `no instance in ${regions.join(', ')} has this address`;
    case 'no-name-match':
      return `no instance in ${regions.join(', ')} is named ${d}`;
    case 'ambiguous':
      return `several instances match: ${d}`;
    case 'lookup-unresolved':
      return `the aws filter depends on something the file does not set: ${d}`;
    case 'lookup-no-filter':
      return 'the aws call names no Name or instance id';
    case 'region-not-chosen':
      return `in region ${d}, which is not among ${regions.join(', ')} (add --region ${d})`;
    case 'no-instance':
      return `no instance ${d} in ${regions.join(', ')}`;
  }
}

export function settingsText(s: ImportRow['settings']): string {
  if (!s) return '';
  return [s.user ? `user ${s.user}` : '', s.port ? `port ${s.port}` : '', s.identityFile ? `key ${s.identityFile}` : '', s.auth ?? '']
    .filter(Boolean)
    .join(', ');
}

function notesOf(r: ImportRow, plan: ImportPlan): string {
  const rows = plan.rows;
  const n: string[] = [];
  if (r.matchedBy) n.push(BY[r.matchedBy]);
  if (r.reason) n.push(reasonText(r.reason, plan.regions));
  if (r.sameAs !== undefined) n.push(`same instance as ${rows[r.sameAs]!.at.file}:${rows[r.sameAs]!.at.line} (that one's settings come first)`);
  if (r.passwordLeftOut) n.push('password found, left out');
  // What would be written only matters for a row that maps to an instance.
  if (r.status === 'mapped' && r.keyFile && !r.keyFile.found) n.push(`key ${r.keyFile.written} not found here (not written)`);
  if (r.status === 'mapped' && r.defaults?.length) n.push(`${r.defaults.join(', ')} from TERATERM.INI`);
  if (r.profile) n.push(`its aws call uses profile ${r.profile}`);
  return n.join('; ');
}

const KEY_STATUS: Record<KnownHostImport['status'], string> = {
  new: 'will be trusted',
  same: 'already trusted',
  conflict: 'CONFLICT: TagSSH trusts another key for this instance; not imported',
};

const NOTE_TEXT: Record<string, (d: string) => string> = {
  encoding: (d) => `read as ${d === 'shift_jis' ? 'Shift_JIS' : d === 'utf-8-bom' ? 'UTF-8 with BOM' : d}`,
  'include-missing': (d) => `includes ${d}, which was not among the files read`,
  'include-too-deep': (d) => `include of ${d} goes deeper than Tera Term's 9 levels or loops`,
  syntax: (d) => `line not understood (${d}); skipped`,
  budget: () => 'too many paths through this macro; the rest was not followed',
  'skipped-file': () => 'not a file the import reads',
  'tagssh-block': () => "TagSSH's own exported block: left as it is",
  'ssh1-key': () => 'an SSH1 key: TagSSH speaks SSH2 only (not imported)',
  'known-hosts-skipped': () => 'not a host key line (not imported)',
  'password-found': () => 'a password is written here: left out (TagSSH never stores passwords)',
  'password-file': () => 'reads a password from a file at run time: not imported',
};

/** The whole report of a plan, as the terminal shows it. */
function planText(plan: ImportPlan): string {
  const out: string[] = [];
  const rows = plan.rows.map((r) => [
    printable(`${r.at.file}:${r.at.line}`),
    printable(r.found),
    r.instance ? `${printable(r.instance.name ?? '-')} (${r.instance.id})` : '—',
    printable(settingsText(r.settings)),
    printable(notesOf(r, plan)),
  ]);
  out.push(table(['SOURCE', 'FOUND', 'INSTANCE', 'CONNECT AS', 'NOTES'], rows).trimEnd());
  if (plan.knownHosts.length) {
    out.push('', "Host keys from Tera Term's ssh_known_hosts:");
    out.push(
      table(
        ['SOURCE', 'INSTANCE', 'KEY', 'STATUS'],
        plan.knownHosts.map((k) => [
          printable(`${k.at.file}:${k.at.line}`),
          `${printable(k.name ?? '-')} (${k.instanceId})`,
          `${printable(k.keyType)} ${k.fingerprint}`,
          KEY_STATUS[k.status],
        ]),
      ).trimEnd(),
    );
  }
  const notes = plan.notes.filter((n) => n.code !== 'password-found');
  if (notes.length) {
    out.push('', 'Notes:');
    for (const n of notes) out.push(`  ${printable(`${n.at.file}:${n.at.line}`)}: ${escapeControls((NOTE_TEXT[n.code] ?? (() => n.code))(n.detail ?? ''))}`);
  }
  const mapped = plan.rows.filter((r) => r.status === 'mapped');
  const instances = new Set(mapped.map((r) => r.instance!.id)).size;
  out.push(
    '',
    `${plan.rows.length} host(s) found in ${plan.files.length} file(s): ${mapped.length} mapped to ${instances} instance(s) in ${plan.regions.join(', ')}, ${plan.rows.length - mapped.length} not mapped.`,
  );
  if (plan.passwordsFound)
    out.push(`Passwords were found in ${plan.passwordsFound} place(s) and left out: TagSSH never stores passwords (it asks when one is needed).`);
  return out.join('\n') + '\n';
}

export async function importTeraTerm(paths: string[], flags: ImportFlags, scope: AwsScope): Promise<number> {
  if (flags.yes && flags.dryRun)
    throw new AppError('INVALID_INPUT', '--yes and --dry-run contradict each other.', 'Use --dry-run to only look, --yes to write without being asked.');
  const [{ readImportPaths }, { previewImport, importDirs }, { applyPlan }, { jsonSettingsStore }, { KnownHostsStore }] = await Promise.all([
    import('../../../import/read.js'),
    import('../../../import/importer.js'),
    import('../../../import/apply.js'),
    import('../../../store/settings.js'),
    import('../../../ssh/knownHosts.js'),
  ]);
  const files = readImportPaths(paths);
  const store = new KnownHostsStore();
  const p = await previewImport(files, scope, importDirs(paths), store);
  const keys = p.keys.length;
  const nothing = p.writes.size === 0 && keys === 0;
  if (!flags.json) process.stdout.write(planText(p.plan));
  if (flags.dryRun || nothing) {
    if (flags.json) printJson({ plan: p.plan, written: null });
    else process.stdout.write(flags.dryRun ? 'Nothing written (--dry-run).\n' : 'Nothing to write.\n');
    return p.plan.rows.some((r) => r.status === 'mapped') || flags.dryRun ? 0 : 3;
  }
  await confirmOrYes(`Write the settings of ${p.writes.size} instance(s)${keys ? ` and trust ${keys} host key(s)` : ''}?`, flags.yes);
  const result = applyPlan(p, jsonSettingsStore(), store);
  if (flags.json) printJson({ plan: p.plan, written: result });
  else
    process.stdout.write(
      `Wrote the settings of ${result.instances} instance(s); trusted ${result.hostKeysAdded} host key(s).${result.hostKeyConflicts.length ? ` Not imported (TagSSH trusts another key): ${result.hostKeyConflicts.join(', ')}.` : ''}\n`,
    );
  return 0;
}
