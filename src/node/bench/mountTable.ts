import { mountsFromOutput, mountTableCommand, type MountFacts } from '../../common/bench/mounts.js';
import { shQuote } from '../../common/shell.js';
import type { SshConnection } from '../ssh/connection.js';

// Reads the file systems of a run's directories from the host's mount table (one exec). A host
// without /proc/self/mountinfo (or a failed read) records none: it never fails the run.

export async function readMounts(conn: SshConnection, dirs: Record<string, string>, signal?: AbortSignal): Promise<Record<string, MountFacts>> {
  try {
    const r = await conn.exec(mountTableCommand(Object.values(dirs), shQuote), signal ? { signal } : {});
    return r.code === 0 ? mountsFromOutput(dirs, r.stdout) : {};
  } catch (e) {
    if (signal?.aborted) throw e;
    return {};
  }
}
