// A TagSSH process that writes one kind of file in a loop until it is killed, for the kill -9
// fault (test/faults/scenarios/killWrites.ts). After each write has returned it prints the
// write's number on stdout (unbuffered), so the parent knows which writes completed.
//   writer.ts settings|results|knownHosts <dir> <firstIndex>
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSettingsStore } from '../../../src/node/store/settings.js';
import { defaultSettings } from '../../../src/common/model/settings.js';
import { resultsStore } from '../../../src/node/bench/store.js';
import { KnownHostsStore } from '../../../src/node/ssh/knownHosts.js';
import { sha256Fingerprint } from '../../../src/node/ssh/fingerprint.js';
import type { BenchResult } from '../../../src/common/bench/result.js';
import { ed25519KeyBlob } from '../../support/sshKeyBlob.js';
import { hostId, portFor, resultId } from './writeNames.js';

const [kind, dir, first] = process.argv.slice(2) as [string, string, string];

function result(i: number): BenchResult {
  return {
    id: resultId(i),
    preset: 'sysinfo',
    params: {},
    status: 'ok',
    instance: { label: `web-${i}`, host: '127.0.0.2' },
    startedAt: new Date().toISOString(),
    metrics: [],
    facts: { i: String(i) },
    notes: [],
    raw: { stdout: 'x'.repeat(20_000), stderr: '' },
  };
}

if (kind && dir && first) {
  const settings = jsonSettingsStore(join(dir, 'settings.json'));
  const results = resultsStore(join(dir, 'results'));
  const known = new KnownHostsStore(join(dir, 'known_hosts'));
  const base = defaultSettings();
  const blob = ed25519KeyBlob();
  for (let i = Number(first); ; i++) {
    if (kind === 'settings') settings.set({ ...base, port: portFor(i) });
    else if (kind === 'results') results.save(result(i));
    else {
      const r = known.trust(hostId(i), {
        label: `web-${i}`,
        instanceId: null,
        region: null,
        keys: [{ keyType: 'ssh-ed25519', fingerprint: sha256Fingerprint(blob), publicKey: blob.toString('base64') }],
        source: 'accept-new',
        addedAt: new Date().toISOString(),
        lastAddress: null,
      });
      if (!r.ok) throw new Error(`trust ${hostId(i)} refused`);
    }
    writeSync(1, `${i}\n`);
  }
}
