import * as z from 'zod';
import { AppError } from '../errors.js';
import { registerPreset, type Preset } from './preset.js';
import { sysinfo } from './presets/sysinfo.js';
import { cpufreq } from './presets/cpufreq.js';
import { unixbench } from './presets/unixbench.js';
import { iperf3 } from './presets/iperf3.js';
import { fio } from './presets/fio.js';
import { dd } from './presets/dd.js';
import { listing, smallfiles } from './presets/files.js';
import { transfer } from './presets/transfer.js';

// The preset registry, plus parameter helpers shared by the CLI (strings from --param k=v) and
// the app (values from a form built from describeParams()).

export type { Metric, ParsedOutput, PresetDef, ScriptContext, Confirmation, LocalUpload, PeerAddressing } from './types.js';
export type { BoundPeer, BoundPreset, Preset } from './preset.js';
export { registerPreset } from './preset.js';

export const PRESET_IDS = ['sysinfo', 'cpufreq', 'unixbench', 'iperf3', 'fio', 'dd', 'smallfiles', 'listing', 'transfer'] as const;
type PresetId = (typeof PRESET_IDS)[number];

export const PRESETS: Record<PresetId, Preset> = {
  sysinfo: registerPreset(sysinfo),
  cpufreq: registerPreset(cpufreq),
  unixbench: registerPreset(unixbench),
  iperf3: registerPreset(iperf3),
  fio: registerPreset(fio),
  dd: registerPreset(dd),
  smallfiles: registerPreset(smallfiles),
  listing: registerPreset(listing),
  transfer: registerPreset(transfer),
};

export function getPreset(id: string): Preset {
  const p = Object.hasOwn(PRESETS, id) ? (PRESETS as Record<string, Preset | undefined>)[id] : undefined;
  if (!p) throw new AppError('INVALID_INPUT', `Unknown benchmark preset "${id}".`, `Use one of: ${PRESET_IDS.join(', ')}.`);
  return p;
}

export interface ParamInfo {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'enum';
  default?: unknown;
  help: string;
  options?: string[];
  min?: number;
  max?: number;
}

/** The parameters of a preset, for forms and `--help`: names, types, defaults, help text. */
export function describeParams(preset: Preset): ParamInfo[] {
  const js = z.toJSONSchema(preset.params, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Record<string, unknown>> };
  return Object.entries(js.properties ?? {}).map(([name, s]) => {
    const info: ParamInfo = { name, type: 'string', help: typeof s.description === 'string' ? s.description : '' };
    if (Array.isArray(s.enum)) {
      info.type = 'enum';
      info.options = s.enum.map(String);
    } else if (s.type === 'integer' || s.type === 'number' || s.type === 'boolean') info.type = s.type;
    if ('default' in s) info.default = s.default;
    if (typeof s.minimum === 'number' && s.minimum > -1e15) info.min = s.minimum;
    if (typeof s.maximum === 'number' && s.maximum < 1e15) info.max = s.maximum;
    return info;
  });
}

/** Parses `k=v` strings (CLI) into typed values using the preset's parameter types. */
export function paramsFromStrings(preset: Preset, pairs: string[]): Record<string, unknown> {
  const info = new Map(describeParams(preset).map((p) => [p.name, p]));
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new AppError('INVALID_INPUT', `--param "${pair}" is not of the form key=value.`, `Parameters of ${preset.id}: ${[...info.keys()].join(', ')}.`);
    const k = pair.slice(0, eq);
    const v = pair.slice(eq + 1);
    const p = info.get(k);
    if (!p) throw new AppError('INVALID_INPUT', `${preset.id} has no parameter "${k}".`, `Parameters of ${preset.id}: ${[...info.keys()].join(', ')}.`);
    if (p.type === 'boolean') {
      if (!/^(true|false|1|0|yes|no)$/i.test(v)) throw new AppError('INVALID_INPUT', `${k} must be true or false, not "${v}".`);
      out[k] = /^(true|1|yes)$/i.test(v);
    } else if (p.type === 'integer' || p.type === 'number') {
      if (!/^-?\d+(\.\d+)?$/.test(v)) throw new AppError('INVALID_INPUT', `${k} must be a number, not "${v}".`);
      out[k] = Number(v);
    } else out[k] = v;
  }
  return out;
}

/** Validates parameters against the preset schema, filling in defaults; one-line errors. */
export function validateParams(preset: Preset, raw: unknown): Record<string, unknown> {
  return preset.bind(raw).params;
}
