import type { Instance } from '../../common/model/instance.js';
import { AppError } from '../../common/errors.js';
import { readKeyFile } from '../ssh/auth.js';
import { similarNames } from '../../common/names.js';

// Which instances an export covers (exact Name or id, or all), and what only Node can tell:
// whether a key file on this machine is passphrase-protected.

export function selectInstances(all: readonly Instance[], names: readonly string[], everything: boolean): Instance[] {
  const live = all.filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down');
  if (everything) {
    if (live.length === 0) throw new AppError('NOT_FOUND', 'No instances to export in this profile/region.', undefined, { reason: 'nothing-to-export' });
    return live;
  }
  if (names.length === 0) throw new AppError('INVALID_INPUT', 'Name the instances to export.', undefined, { reason: 'export-no-names' });
  const picked: Instance[] = [];
  for (const n of names) {
    const hits = live.filter((i) => i.name === n || i.id === n);
    if (hits.length === 0) {
      const mean = similarNames(
        n,
        live.flatMap((i) => (i.name === null ? [] : [i.name])),
      );
      throw new AppError(
        'NOT_FOUND',
        `No instance named ${JSON.stringify(n)}.${mean.length ? ` Did you mean ${mean.map((m) => JSON.stringify(m)).join(' or ')}?` : ''}`,
        undefined,
        { reason: 'export-no-such-name', ref: n, suggestions: mean },
      );
    }
    for (const h of hits) if (!picked.includes(h)) picked.push(h);
  }
  return picked;
}

/** True when the key file can be read here and is encrypted (so TTSSH must ask for the passphrase). */
export function keyLooksEncrypted(path: string): boolean | undefined {
  let text: string;
  try {
    text = readKeyFile(path).toString('utf8'); // bounded: a device or a pipe given as --keyfile is never read
  } catch {
    return undefined;
  }
  if (/Proc-Type: 4,ENCRYPTED|BEGIN ENCRYPTED PRIVATE KEY/.test(text)) return true;
  if (/^Encryption: (?!none)/m.test(text)) return true; // PuTTY .ppk
  const m = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END/.exec(text);
  if (m) {
    // openssh-key-v1: "openssh-key-v1\0", then the cipher name as a length-prefixed string.
    const raw = Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64');
    if (raw.length < 19) return undefined;
    const len = raw.readUInt32BE(15);
    return raw.subarray(19, 19 + len).toString() !== 'none';
  }
  return false;
}
