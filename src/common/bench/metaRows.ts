import type { BenchResult } from './result.js';
import { storageText } from './meta.js';

// A result's metadata as rows for people (details, exports, the report). Apart from meta.ts,
// whose schema result.ts is built from, so the two need not import each other.

/** Metadata as ordered (label key, value) pairs: what details, exports and the report show. */
export function metaRows(r: Pick<BenchResult, 'instance' | 'toolVersion' | 'startedAt' | 'endedAt' | 'meta'>): [string, string][] {
  const i = r.instance;
  const m = r.meta ?? {};
  const unknown = 'unknown';
  const rows: [string, string][] = [
    ['instanceId', i.instanceId ?? unknown],
    ['name', i.name ?? i.label],
    ['type', i.type ?? unknown],
    ['region', i.region ?? unknown],
    ['az', i.az ?? unknown],
    ['ami', i.ami ?? unknown],
    ['amiName', m.amiName ?? unknown],
    ['kernel', m.kernel ?? unknown],
    ['cpuModel', m.cpuModel ?? unknown],
    ['vcpus', m.vcpus !== undefined ? String(m.vcpus) : unknown],
    ['cpufreq', m.cpufreqGovernor ? `${m.cpufreqGovernor} / ${m.cpufreqDriver ?? unknown}` : unknown],
    ['toolVersion', r.toolVersion ?? unknown],
    ['tagsshVersion', m.tagsshVersion ?? unknown],
    ['started', r.startedAt],
    ['ended', r.endedAt ?? unknown],
  ];
  for (const [param, s] of Object.entries(m.storage ?? {})) rows.push([`storage.${param}`, storageText(s)]);
  return rows;
}
