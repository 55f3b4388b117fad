import type { AwsFlags } from '../../awsFlags.js';

// What `tagssh export teraterm` and `export ssh-config` flags are once commander has read them.

export interface TeraTermFlags extends AwsFlags {
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
  lang?: string;
}

export interface SshConfigFlags extends AwsFlags {
  all?: boolean;
  user?: string;
  identity?: string;
  jump?: string;
  file?: string;
  /** The same as file (the word `export teraterm` uses). */
  out?: string;
  dryRun?: boolean;
  start?: boolean;
  private?: boolean;
}
