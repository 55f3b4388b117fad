import type { ImportResult } from '../../common/import/contract.js';
import type { KnownHostsStore, TrustedKey } from '../ssh/knownHosts.js';
import { sha256Fingerprint } from '../ssh/fingerprint.js';
import type { SettingsStore } from '../store/settings.js';
import type { PlanInternals } from './plan.js';

// Writes what a plan showed, once confirmed: each mapped instance's settings (merged over what was
// chosen for it before: what the import says wins), then Tera Term's host keys for instances TagSSH
// trusts no key for yet. Trusting is compare-and-set, as on first contact: a key another process
// trusted meanwhile that differs is reported as a conflict and nothing is written for it.

export function applyPlan(p: PlanInternals, settings: SettingsStore, store: KnownHostsStore, now = new Date()): ImportResult {
  if (p.writes.size) {
    const s = settings.get();
    const connectAs = { ...s.connectAs };
    for (const [id, w] of p.writes) connectAs[id] = { ...connectAs[id], ...w };
    settings.set({ ...s, connectAs });
  }
  const byInstance = new Map<string, PlanInternals['keys']>();
  for (const k of p.keys) byInstance.set(k.instanceId, [...(byInstance.get(k.instanceId) ?? []), k]);
  let added = 0;
  const conflicts: string[] = [];
  for (const [id, list] of byInstance) {
    const keys: TrustedKey[] = list.map((k) => ({ keyType: k.keyType, publicKey: k.key, fingerprint: sha256Fingerprint(Buffer.from(k.key, 'base64')) }));
    const r = store.trust(id, {
      label: list[0]!.name ?? id,
      instanceId: id,
      region: list[0]!.region,
      keys,
      source: 'imported',
      addedAt: now.toISOString(),
      lastAddress: null,
    });
    if (r.ok) added += keys.length;
    else conflicts.push(id);
  }
  const planned = p.plan.knownHosts.filter((k) => k.status === 'conflict').map((k) => k.instanceId);
  return { instances: p.writes.size, hostKeysAdded: added, hostKeyConflicts: [...new Set([...planned, ...conflicts])] };
}
