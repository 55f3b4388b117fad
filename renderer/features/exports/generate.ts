import type { Instance } from '../../../src/common/model/instance.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { Output } from '../../../src/common/contract.js';
import type { AliasMapping } from '../../../src/common/export/alias.js';
import { AppError } from '../../../src/common/errors.js';
import { exportSshConfig, exportTeraTerm, type ExportFile, type TtlAuth } from '../../../src/common/export/index.js';
import { zipSync } from 'fflate';
import { getLocale } from '../../i18n/index.js';
import { t } from './messages.js';

// What the Export dialog writes, from the engine's pure generators (src/common/export), the same
// the CLI writes to disk. Nothing secret goes in: key *paths* only, never keys.

export type ExportFormat = 'ssh-config' | 'teraterm';

export interface ExportChoices {
  format: ExportFormat;
  /** OpenSSH: IdentityFile for every host (default: each instance's Connect as…, its key pair's file, else the Settings' key file, as the CLI does). */
  sshKeyFile?: string | null;
  /** Tera Term: how TTSSH authenticates; 'publickey' needs `keyFile` (an absolute Windows path). */
  auth?: Extract<TtlAuth, 'publickey' | 'pageant' | 'password'>;
  keyFile?: string | null;
  keyHasPassphrase?: boolean;
  mode?: 'dynamic' | 'static';
  helper?: 'tagssh' | 'aws-cli';
}

/** The backend's answer for OpenSSH exports: what the ProxyCommand runs and where host keys live. */
export type SshConfigEnv = Output<'export.sshConfigEnv'>;

export interface GeneratedExport {
  files: ExportFile[];
  /** OpenSSH: which Host alias each instance got (Name → alias), to tell the user. */
  mapping: AliasMapping[];
}

const WINDOWS_PATH = /^(?:[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/])/;

/** Login users (and the key pairs' local files) by instance id, as the engine picks them for a connection (`export.loginUsers`). */
export type LoginUsers = Record<string, { user: string; keyPairFile?: string | undefined }>;

/**
 * The files an export writes, from the one generator the CLI uses (src/common/export/generate.ts)
 * with the same Settings and the engine's login users; throws EXPORT_INVALID in the app's words
 * for what the dialog can fix.
 */
export function generateExport(
  choices: ExportChoices,
  instances: readonly Instance[],
  settings: Settings,
  sshEnv: SshConfigEnv | null,
  users: LoginUsers,
  exportedAt = new Date().toISOString(),
): GeneratedExport {
  if (instances.length === 0) throw new AppError('EXPORT_INVALID', t('noneSelected'), t('noneSelectedHint'));
  const userOf = (i: Instance) => users[i.id]?.user;
  if (choices.format === 'ssh-config') {
    if (!sshEnv?.tagsshCommand) throw new AppError('EXPORT_INVALID', t('noTagssh'), t('noTagsshHint'));
    const block = exportSshConfig(
      instances,
      { userOf, keyPairFileOf: (i) => users[i.id]?.keyPairFile, settings, ...(choices.sshKeyFile ? { identityFile: choices.sshKeyFile } : {}) },
      { profile: settings.profile, exportedAt, tagsshCommand: sshEnv.tagsshCommand, knownHostsFile: sshEnv.knownHostsFile },
    );
    return { files: [{ fileName: SSH_CONFIG_FILE, content: `${block.text}\n` }], mapping: block.mapping };
  }
  const auth = choices.auth ?? (choices.keyFile ? 'publickey' : 'pageant');
  const keyFile = choices.keyFile?.trim() || null;
  if (auth === 'publickey') {
    if (!keyFile) throw new AppError('EXPORT_INVALID', t('keyFileMissing'), t('keyFileMissingHint'));
    if (!WINDOWS_PATH.test(keyFile)) throw new AppError('EXPORT_INVALID', t('keyFileNotWindows', { path: keyFile }), t('keyFileNotWindowsHint'));
  }
  const files = exportTeraTerm(
    instances,
    { userOf, settings, auth, ...(auth === 'publickey' && keyFile ? { keyFile, keyHasPassphrase: !!choices.keyHasPassphrase } : {}) },
    { profile: settings.profile, exportedAt, mode: choices.mode ?? 'dynamic', helper: choices.helper ?? 'tagssh', lang: getLocale() === 'ja' ? 'ja' : 'en' },
  );
  return { files, mapping: [] };
}

/**
 * Several files as one .zip (fflate, the standard zip format). Names such as 踏み台.ttl are UTF-8
 * with the format's UTF-8 flag (Windows' Explorer reads it); the entries say they were made on
 * Unix, as Info-ZIP's zip writes them, because Info-ZIP's unzip reads a DOS-made name as code page
 * 437 whatever the flag says. Mode rw-r--r--.
 */
export function zipFiles(files: readonly ExportFile[]): Uint8Array {
  const enc = new TextEncoder();
  const attrs = { mtime: new Date(), os: 3, attrs: 0o100644 * 0x10000 };
  return zipSync(Object.fromEntries(files.map((f) => [f.fileName, [enc.encode(f.content), attrs]])));
}

export const SSH_CONFIG_FILE = 'tagssh_config';
export const ZIP_FILE = 'tagssh-teraterm.zip';
