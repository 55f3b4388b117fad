// Exports as pure text generators (no fs): the CLI writes their output, the app previews it.
export {
  teraTermMacro,
  teraTermMenuMacro,
  teraTermFileNames,
  ttsshOptions,
  type TeraTermHost,
  type TeraTermOptions,
  type TtlAuth,
  type ExportFile,
} from './teraterm.js';
export {
  sshConfigBlock,
  replaceManagedBlock,
  removeManagedBlock,
  hostAliasesOutsideBlock,
  sshConfigValue,
  BLOCK_BEGIN,
  BLOCK_END,
  type SshConfigHost,
  type SshConfigOptions,
  type SshConfigBlock,
} from './sshConfig.js';
export { makeAliases, slugify, type AliasMapping, type AliasInput } from './alias.js';
export {
  teraTermHostsFrom,
  sshConfigHostsFrom,
  defaultUser,
  portOf,
  type TeraTermHostOptions,
  type SshConfigHostOptions,
  type ExportSettings,
} from './fromInstances.js';
export { ttlString, ttsshValue, TTL_MAX_LINE_BYTES, TTL_MAX_STRING_BYTES } from './ttl.js';
export { base64UrlUtf8 } from './encoding.js';
export { exportSshConfig, exportTeraTerm } from './generate.js';
