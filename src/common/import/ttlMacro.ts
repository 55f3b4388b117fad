import { ttlCommand } from './ttlCommands.js';
import { followMacro, type FoundConnect, type TtlHost } from './ttlRun.js';
import type { Note, Value } from './types.js';

// The interpreter's entry: the statement loop (ttlRun.ts) runs with the command table
// (ttlCommands.ts), which calls back into the loop for include, call and the branches. Wired here,
// so neither of the two imports the other.

/** Follows one macro file (with its params: param2… as ttpmacro.exe passes them). */
export function runMacro(file: string, text: string, dir: string, host: TtlHost, params?: Value[]): { connects: FoundConnect[]; notes: Note[] } {
  return followMacro(file, text, dir, host, params, ttlCommand);
}
