import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../common/errors.js';
import { BenchResultSchema, type BenchResult } from '../../common/bench/result.js';
import { tagsshPaths } from '../store/paths.js';
import { readJsonFile, writeJsonFile } from '../store/jsonFile.js';

// Results: one versioned JSON file per run (results/<id>.json), written atomically, so two
// concurrent runs (or two tagssh processes) never race on a shared file.

const RESULTS_SCHEMA_VERSION = 1;

export interface ResultsStore {
  save(r: BenchResult): void;
  get(id: string): BenchResult;
  list(filter?: { preset?: string; instanceId?: string }): BenchResult[];
  remove(id: string): void;
}

const ID_RE = /^[a-z0-9-]{6,64}$/;

export function resultsStore(dir = join(tagsshPaths().data, 'results')): ResultsStore {
  const file = (id: string) => {
    if (!ID_RE.test(id)) throw new AppError('INVALID_INPUT', `"${id}" is not a result id.`, 'List results with `tagssh results`.');
    return join(dir, `${id}.json`);
  };
  const read = (path: string) =>
    readJsonFile<BenchResult | undefined>(
      path,
      RESULTS_SCHEMA_VERSION,
      () => undefined,
      (raw) => BenchResultSchema.parse(raw),
    );
  return {
    save(r) {
      writeJsonFile(file(r.id), RESULTS_SCHEMA_VERSION, BenchResultSchema.parse(r));
    },
    get(id) {
      const r = read(file(id));
      if (!r) throw new AppError('NOT_FOUND', `No benchmark result ${id}.`, 'List results with `tagssh results`.');
      return r;
    },
    list(filter = {}) {
      let names: string[];
      try {
        names = readdirSync(dir).filter((n) => n.endsWith('.json'));
      } catch {
        return [];
      }
      const out: BenchResult[] = [];
      for (const n of names) {
        try {
          const r = read(join(dir, n));
          if (!r) continue;
          if (filter.preset && r.preset !== filter.preset) continue;
          if (filter.instanceId && r.instance.instanceId !== filter.instanceId) continue;
          out.push(r);
        } catch {
          // A damaged or newer-schema file is skipped in listings (get() reports it).
        }
      }
      return out.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
    },
    remove(id) {
      rmSync(file(id), { force: true });
    },
  };
}

/**
 * The id a person typed, as `git` takes a commit: the whole id, or its first characters (4 at
 * least) when exactly one saved result starts with them.
 */
export function resultIdFrom(store: Pick<ResultsStore, 'list'>, typed: string): string {
  // A series id names all its runs (runsFor); a prefix may pick one as well as a run's id.
  const all = [...new Set(store.list().flatMap((r) => (r.series?.id ? [r.id, r.series.id] : [r.id])))];
  if (all.includes(typed)) return typed;
  const hits = typed.length >= 4 ? all.filter((id) => id.startsWith(typed)) : [];
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1)
    throw new AppError(
      'AMBIGUOUS',
      `"${typed}" starts ${hits.length} result ids: ${hits.slice(0, 5).join(', ')}${hits.length > 5 ? ', …' : ''}.`,
      'Type more of the id.',
    );
  if (typed.length < 4)
    throw new AppError(
      'INVALID_INPUT',
      `"${typed}" is too short to pick a result.`,
      'Give at least the first 4 characters of the id (`tagssh results` lists them).',
    );
  throw new AppError('NOT_FOUND', `No benchmark result id starts with "${typed}".`, 'List results with `tagssh results`.');
}

/** The runs an id names: a series id gives all its runs in order, a result id that run alone. */
export function runsFor(store: ResultsStore, ids: string[]): BenchResult[] {
  const all = store.list();
  const out: BenchResult[] = [];
  for (const id of ids) {
    const runs = all.filter((r) => r.series?.id === id);
    if (runs.length) out.push(...runs.sort((a, b) => (a.series?.index ?? 0) - (b.series?.index ?? 0)));
    else out.push(store.get(id));
  }
  return out;
}
