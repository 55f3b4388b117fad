import { escapeControls } from '../../../../common/safeText.js';
import { docLangOf } from '../../options.js';
import type { TeraTermFlags } from './flags.js';
import { exportSettings, loadInstances, loginUsers } from './inputs.js';

// `tagssh export teraterm`: one Tera Term macro per instance (and a menu), written to --out.

export async function exportTeraTermCommand(names: string[], flags: TeraTermFlags): Promise<void> {
  const lang = docLangOf(flags.lang);
  const { exportTeraTerm } = await import('../../../../common/export/generate.js');
  const { selectInstances, keyLooksEncrypted } = await import('../../../export/select.js');
  const { writeExportFiles } = await import('../../../export/files.js');
  const instances = selectInstances(await loadInstances(flags), names, !!flags.all);
  const settings = await exportSettings();
  const users = await loginUsers(instances, flags, settings);
  const opts = {
    mode: flags.static ? ('static' as const) : ('dynamic' as const),
    helper: flags.helper === 'aws' ? ('aws-cli' as const) : ('tagssh' as const),
    profile: flags.profile ?? null,
    private: !!flags.private,
    exportedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    ...(flags.tagsshPath ? { tagsshPath: flags.tagsshPath } : {}),
    menu: flags.menu !== false,
    lang,
  };
  const files = exportTeraTerm(
    instances,
    {
      userOf: (i) => users.get(i.id)?.user,
      ...(settings ? { settings } : {}),
      ...(flags.keyfile ? { keyFile: flags.keyfile } : {}),
      keyHasPassphrase: !!flags.askPassphrase || (flags.keyfile ? keyLooksEncrypted(flags.keyfile) === true : false),
      ...(flags.auth ? { auth: flags.auth } : {}),
      ...(flags.private ? { private: true } : {}),
    },
    opts,
  );
  for (const p of writeExportFiles(flags.out ?? '.', files)) process.stdout.write(`${escapeControls(p)}\n`);
  if (opts.mode === 'dynamic' && opts.helper === 'tagssh' && !flags.tagsshPath) {
    process.stderr.write(
      'Note: the macros run `tagssh resolve` from PATH on the machine where Tera Term runs. If tagssh is not on PATH there, export again with --tagssh-path C:\\path\\to\\tagssh.cmd (or --helper aws, or --static).\n',
    );
  }
}
