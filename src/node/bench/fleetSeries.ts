import { newRunId } from './runResult.js';
import { seriesVerdict, type RepeatPlan } from '../../common/bench/repeat.js';
import type { BenchResult } from '../../common/bench/result.js';
import { runFleet, type FleetRequest } from './ssmFleet.js';

// Repeats through Systems Manager: the first round goes to the targets; each later round goes,
// as one command, to the nodes whose series the repeat rule wants to run again (by instance id),
// until none does. Each node's results form its series, as SSH runs do.

export async function runFleetSeries(req: FleetRequest, plan: RepeatPlan, onRound?: (round: number, nodes: number) => void): Promise<BenchResult[]> {
  const series = new Map<string, { id: string; runs: BenchResult[] }>();
  let targets = req.targets;
  for (let round = 1; ; round++) {
    const results = await runFleet({
      ...req,
      targets,
      series: (node) => {
        const s = series.get(node);
        return { id: s?.id ?? newRunId(), index: s?.runs.length ?? 0, plan };
      },
    });
    for (const r of results) {
      const node = r.instance.instanceId!;
      const s = series.get(node) ?? { id: r.series!.id, runs: [] };
      s.runs.push(r);
      series.set(node, s);
    }
    const again = [...series].filter(([, s]) => seriesVerdict(plan, s.runs).again).map(([node]) => node);
    if (!again.length || req.signal?.aborted) break;
    onRound?.(round + 1, again.length);
    targets = [{ Key: 'InstanceIds', Values: again }];
  }
  return [...series.values()].flatMap((s) => s.runs);
}
