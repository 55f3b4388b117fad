// A separate TagSSH process acting on one known_hosts store, for the concurrency tests in
// test/integration/node/ssh/knownHostsConcurrency.test.ts. Waits until the shared start time so
// every worker hits the store at once, then prints one JSON line with what it saw.
//   trust   <store> <startAt> <prefix> <count>       trusts <prefix>-0 … <prefix>-(count-1)
//   touch   <store> <startAt> <hostIds,…> <rounds>   touches each host with a new address per round
//   forget  <store> <startAt> <hostIds,…>            forgets each host, one by one
//   decide  <store> <startAt> <instanceId> <delayMs> first contact with a fresh key, the handshake taking delayMs
import { KnownHostsStore, type KnownHostEntry } from '../../src/node/ssh/knownHosts.js';
import { decideHostKey } from '../../src/node/ssh/hostKeys.js';
import { ed25519KeyBlob } from './sshKeyBlob.js';
import { sha256Fingerprint } from '../../src/node/ssh/fingerprint.js';

const [mode, path, startAt, a, b] = process.argv.slice(2) as [string, string, string, string, string];
const store = new KnownHostsStore(path);

function entry(label: string, blob: Buffer): KnownHostEntry {
  return {
    label,
    instanceId: null,
    region: null,
    keys: [{ keyType: 'ssh-ed25519', fingerprint: sha256Fingerprint(blob), publicKey: blob.toString('base64') }],
    source: 'accept-new',
    addedAt: new Date().toISOString(),
    lastAddress: null,
  };
}

const wait = Number(startAt) - Date.now();
if (wait > 0) await new Promise((r) => setTimeout(r, wait));

if (mode === 'trust') {
  let ok = 0;
  for (let i = 0; i < Number(b); i++)
    if ((store.trust(`${a}-${i}:22`, entry(`${a}-${i}`, ed25519KeyBlob())) as { ok?: boolean } | undefined)?.ok !== false) ok++;
  console.log(JSON.stringify({ ok }));
} else if (mode === 'touch') {
  const ids = a.split(',');
  for (let r = 0; r < Number(b); r++) for (const id of ids) store.touch(id, `198.51.100.${r % 250}:22`);
  console.log(JSON.stringify({ done: true }));
} else if (mode === 'forget') {
  const removed = a.split(',').flatMap((id) => store.forget({ hostId: id }));
  console.log(JSON.stringify({ removed }));
} else if (mode === 'decide') {
  const blob = ed25519KeyBlob();
  const d = await decideHostKey({ host: '127.0.0.1', port: 22, label: 'web', instanceId: a, region: 'eu-west-1', acceptNewHostKey: true }, blob, {
    store,
    consoleOutput: () => new Promise((r) => setTimeout(() => r(null), Number(b))),
  });
  console.log(JSON.stringify({ ok: d.ok, code: d.error?.code ?? null, fingerprint: sha256Fingerprint(blob) }));
}
