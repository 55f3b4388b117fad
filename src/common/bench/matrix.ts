import { AppError } from '../errors.js';
import type { Preset } from './preset.js';
import type { MountFacts } from './mounts.js';

// Matrix runs: a parameter given several values runs the preset once per value, in one batch,
// compared side by side (`--param dir=/mnt/efs --param dir=/mnt/s3fs`). Several parameters with
// several values run every combination, up to MATRIX_LIMIT. Every combination is validated, and an
// error names the value at fault (or the combination, when two parameters clash). The words name no flag or control: each face adds its own.

/** The most combinations one batch runs (per host). */
export const MATRIX_LIMIT = 16;

export type ParamValue = string | number | boolean;
/** Values per parameter, in the order given; a parameter with one value is fixed. */
export type MatrixValues = Record<string, ParamValue[]>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Every combination of the values, each validated by the preset (defaults filled in). */
export function expandMatrix(preset: Preset, values: MatrixValues): Record<string, unknown>[] {
  const fixed: Record<string, ParamValue> = {};
  const varying: [string, ParamValue[]][] = [];
  for (const [name, list] of Object.entries(values)) {
    if (list.length === 0) continue;
    list.forEach((v, i) => {
      if (list.findIndex((w) => same(w, v)) !== i) throw new AppError('INVALID_INPUT', `${preset.id}: ${name}=${String(v)} is given twice.`);
    });
    if (list.length === 1) fixed[name] = list[0]!;
    else varying.push([name, list]);
  }
  const total = varying.reduce((n, [, list]) => n * list.length, 1);
  if (total > MATRIX_LIMIT) {
    const shape = varying.map(([name, list]) => `${list.length} ${name}`).join(' × ');
    throw new AppError('INVALID_INPUT', `${preset.id}: ${shape} make ${total} runs per instance; one batch runs at most ${MATRIX_LIMIT}.`);
  }
  let sets: Record<string, ParamValue>[] = [fixed];
  for (const [name, list] of varying) sets = sets.flatMap((s) => list.map((v) => ({ ...s, [name]: v })));
  return sets.map((s) => {
    try {
      return preset.bind(s).params;
    } catch (e) {
      throw e instanceof AppError
        ? new AppError(
            e.code,
            namedValue(
              preset.id,
              e.message,
              s,
              varying.map(([n]) => n),
            ),
            e.hint,
          )
        : e;
    }
  });
}

/** "fio: dir: must be…" → "fio: dir=relative: must be…" when dir varies; else the combination is named. */
function namedValue(id: string, message: string, set: Record<string, ParamValue>, varying: string[]): string {
  const at = new RegExp(`^${id}: (\\w+): `).exec(message)?.[1];
  if (at && varying.includes(at)) return message.replace(`${id}: ${at}: `, `${id}: ${at}=${String(set[at])}: `);
  if (!at || varying.length === 0) return message;
  return `${message.replace(/\.$/, '')} (with ${varying.map((n) => `${n}=${String(set[n])}`).join(', ')}).`;
}

/** The parameters whose values differ between these parameter sets, in first-seen order. */
export function varyingParams(sets: Record<string, unknown>[]): string[] {
  const keys = [...new Set(sets.flatMap((s) => Object.keys(s)))];
  return keys.filter((k) => sets.some((s) => !same(s[k], sets[0]![k])));
}

/** What tells one run of a matrix from the others: "dir=/mnt/efs nfs4 (EFS), bs=4k". */
export function variantLabel(params: Record<string, unknown>, keys: string[], mounts?: Record<string, MountFacts>): string {
  return keys
    .map((k) => {
      const v = params[k];
      const text = `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
      const m = mounts?.[k];
      return m ? `${text} ${m.label}` : text;
    })
    .join(', ');
}

/** `k=v` strings (the CLI's repeated --param) as values per parameter, each typed by the preset. */
export function matrixFromStrings(preset: Preset, pairs: string[], typed: (preset: Preset, pairs: string[]) => Record<string, unknown>): MatrixValues {
  const out: MatrixValues = {};
  for (const pair of pairs) for (const [k, v] of Object.entries(typed(preset, [pair]))) (out[k] ??= []).push(v as ParamValue);
  return out;
}
