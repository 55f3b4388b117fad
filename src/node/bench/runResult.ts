import { randomBytes } from 'node:crypto';
import { isAppError } from '../../common/errors.js';
import type { ParsedOutput } from '../../common/bench/index.js';
import type { BenchHostInfo, BenchResult } from '../../common/bench/result.js';
import { MARK } from '../../common/bench/script.js';
import { metaFromOutput } from '../../common/bench/meta.js';
import { tagsshVersion } from '../version.js';
import type { BenchHost } from './runTypes.js';

// A run's record: its id, its host, the phases its output marks, and what its output says.

export function newRunId(): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').toLowerCase();
  return `${t}-${randomBytes(4).toString('hex')}`;
}

export function hostInfo(h: BenchHost): BenchHostInfo {
  const i = h.instance;
  const info: BenchHostInfo = { label: h.target.label, host: h.target.host };
  const id = i?.id ?? h.target.instanceId;
  if (id) info.instanceId = id;
  if (i) Object.assign(info, { name: i.name, type: i.type, az: i.az, ami: i.imageId, region: i.region });
  else if (h.target.region) info.region = h.target.region;
  return info;
}

/** Splits streamed stdout into lines to pick out `@@tagssh:phase …` markers. */
export function phaseWatcher(onPhase: (p: string) => void): (chunk: string) => void {
  let partial = '';
  const prefix = `${MARK}phase `;
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (l.startsWith(prefix)) onPhase(l.slice(prefix.length).trim());
  };
}

export function isConnectionLoss(e: unknown): boolean {
  return isAppError(e) && ['SESSION_CLOSED', 'NETWORK', 'CONNECT_FAILED', 'TIMEOUT'].includes(e.code);
}

/** A parsed output applied to a result (status, metrics, error): one rule for SSH runs and SSM fleets. */
export function applyParsed(r: BenchResult, parsed: ParsedOutput, exitCode: number | null): void {
  r.metrics = parsed.metrics;
  r.facts = parsed.facts;
  r.notes = parsed.notes;
  if (parsed.toolVersion) r.toolVersion = parsed.toolVersion;
  r.meta = { ...r.meta, ...metaFromOutput(r.raw.stdout), tagsshVersion: tagsshVersion() };
  r.exitCode = exitCode;
  if (parsed.ok && exitCode === 0) {
    r.status = 'ok';
    delete r.error;
  } else {
    r.status = 'failed';
    const why = parsed.error ?? (r.raw.stderr.trim().split('\n').filter(Boolean).pop() || `exit status ${exitCode ?? 'unknown (killed)'}`);
    r.error = { code: 'REMOTE_FAILED', message: why, hint: `See the raw output of the run: tagssh results --show ${r.id}` };
  }
}
