import type { Instance } from '../model/instance.js';
import { sshConfigHostsFrom, teraTermHostsFrom, type SshConfigHostOptions, type TeraTermHostOptions } from './fromInstances.js';
import { sshConfigBlock, type SshConfigBlock, type SshConfigOptions } from './sshConfig.js';
import { teraTermFileNames, teraTermMacro, teraTermMenuMacro, type ExportFile, type TeraTermOptions } from './teraterm.js';

// The one generator behind both faces' exports: `tagssh export …` and the app's Export dialog
// call these with the same Settings (key file, jump host, port, each instance's Connect as…) and
// the same login users (the engine's, src/node/export/loginUsers.ts), so the same instances
// export the same bytes from either.

/** The OpenSSH config block for these instances. */
export function exportSshConfig(instances: readonly Instance[], hosts: SshConfigHostOptions, opts: SshConfigOptions): SshConfigBlock {
  return sshConfigBlock(sshConfigHostsFrom(instances, hosts), opts);
}

/** One Tera Term macro per instance, named by its alias, plus the menu macro when there are several (unless `menu` is false). */
export function exportTeraTerm(instances: readonly Instance[], hosts: TeraTermHostOptions, opts: TeraTermOptions & { menu?: boolean }): ExportFile[] {
  const list = teraTermHostsFrom(instances, hosts);
  const names = teraTermFileNames(list);
  const files = list.map((h, i) => teraTermMacro(h, opts, names[i]));
  if (list.length > 1 && opts.menu !== false) files.push(teraTermMenuMacro(list, opts));
  return files;
}
