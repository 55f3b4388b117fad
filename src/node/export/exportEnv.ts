import { accessSync, closeSync, constants, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import { toAppError } from '../../common/errors.js';
import { knownHostsPath } from '../ssh/knownHosts.js';
import { tagsshSelfCommand } from './selfCommand.js';

// What an OpenSSH config exported by a UI needs from this machine: the command its ProxyCommand
// runs, and TagSSH's known_hosts. Run as the tagssh CLI (`tagssh web`), that command is this
// very program (tagsshSelfCommand). In the desktop app the running executable is Electron, which
// cannot run scripts, so it is the `tagssh` installed on PATH, by absolute real path — ssh runs
// ProxyCommand with whatever PATH it inherits, so a bare `tagssh` is never written. No command
// is better than one that cannot run: then the UI refuses the export and says what to install.

export interface SshConfigEnv {
  tagsshCommand: string[] | null;
  knownHostsFile: string;
  /** Why there is no command (English; the UI words its own refusal). */
  unavailable?: string;
}

interface SshConfigEnvInput {
  /** The running program (process.argv[1]). */
  script?: string | undefined;
  execPath?: string;
  env?: NodeJS.ProcessEnv;
}

const CLI_ENTRY = 'tagssh.mjs';

/**
 * Set by `tagssh web` in its engine's environment: the CLI script serving the app. The engine runs
 * in a process of its own (argv[1] is the engine host), yet the app is the tagssh command's, so
 * its exports run that command, as `tagssh export` does. Only a file named tagssh.mjs counts.
 */
export const CLI_SCRIPT_ENV = 'TAGSSH_CLI_SCRIPT';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The first executable `name` on PATH, by real path. */
function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    // A relative PATH entry means a different file from every other working directory.
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return realOrNull(candidate);
  }
  return null;
}

function firstLine(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('latin1').split('\n')[0] ?? '';
  } finally {
    closeSync(fd);
  }
}

/**
 * The installed `tagssh` as ProxyCommand words. A script that starts `#!/usr/bin/env node` (what
 * `npm link` and `npm install -g` install) finds its Node on ssh's PATH, which may lack it: it
 * is written with the absolute Node found on this PATH, as the CLI's own export does.
 */
function installedCommand(env: NodeJS.ProcessEnv): { command: string[] } | { unavailable: string } {
  const found = findOnPath('tagssh', env);
  if (!found) return { unavailable: 'No tagssh command is installed on PATH.' };
  if (!/^#!\s*\/usr\/bin\/env\s+(?:-S\s+)?node\b/.test(firstLine(found))) return { command: [found] };
  const node = findOnPath('node', env);
  if (!node) return { unavailable: `${found} needs node, and no node is on PATH.` };
  return { command: [node, found] };
}

/** Was this process started as the tagssh CLI (bin/tagssh.mjs, or a `tagssh` link to it)? */
function startedAsCli(script: string | undefined): boolean {
  if (!script) return false;
  const real = realOrNull(script);
  return real !== null && basename(real) === CLI_ENTRY;
}

export function sshConfigEnv(input: SshConfigEnvInput = {}): SshConfigEnv {
  const env = input.env ?? process.env;
  const script = 'script' in input ? input.script : env[CLI_SCRIPT_ENV] || process.argv[1];
  const knownHostsFile = resolve(knownHostsPath(env));
  if (startedAsCli(script)) {
    try {
      return { tagsshCommand: tagsshSelfCommand({ script, ...(input.execPath ? { execPath: input.execPath } : {}) }), knownHostsFile };
    } catch (e) {
      return { tagsshCommand: null, knownHostsFile, unavailable: toAppError(e).message };
    }
  }
  const found = installedCommand(env);
  return 'command' in found ? { tagsshCommand: found.command, knownHostsFile } : { tagsshCommand: null, knownHostsFile, unavailable: found.unavailable };
}
