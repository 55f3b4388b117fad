import type { BenchResult } from './result.js';

// Results as PerfKitBenchmarker publishes samples: newline-delimited JSON, one sample per line —
// metric, value, unit, metadata, timestamp (Unix seconds), plus the fields its publisher adds to
// every sample (test, product_name, official, owner, run_uri, sample_uri). Read from
// perfkitbenchmarker/publisher.py (SampleCollector.AddSamples and NewlineDelimitedJSONPublisher,
// with collapse_labels off so metadata stays an object) and sample.py (_SAMPLE_FIELDS), at
// GoogleCloudPlatform/PerfKitBenchmarker 946ea317692cac6c78e4aec1cd041b538f1a0285. Metadata keys
// follow PKB's VM and disk metadata where one exists (zone, machine_type, image, kernel_release,
// num_cpus, cpu_version, data_disk_*), so PKB dashboards read them as they read their own.

type PkbValue = string | number | boolean;

interface PkbSample {
  metric: string;
  value: number;
  unit: string;
  metadata: Record<string, PkbValue>;
  timestamp: number;
  test: string;
  product_name: string;
  official: boolean;
  owner: string;
  run_uri: string;
  sample_uri: string;
}

/** The metadata every sample of one run carries. */
function pkbMetadata(r: BenchResult): Record<string, PkbValue> {
  const i = r.instance;
  const m = r.meta ?? {};
  const md: Record<string, PkbValue> = { cloud: 'AWS', preset: r.preset, result_id: r.id, start_time: r.startedAt };
  const put = (k: string, v: PkbValue | null | undefined) => {
    if (v !== undefined && v !== null && v !== '') md[k] = v;
  };
  put('end_time', r.endedAt);
  put('instance_id', i.instanceId);
  put('name', i.name ?? i.label);
  put('machine_type', i.type);
  put('region', i.region);
  put('zone', i.az);
  put('image', i.ami);
  put('image_name', m.amiName);
  put('kernel_release', m.kernel);
  put('cpu_version', m.cpuModel);
  put('num_cpus', m.vcpus);
  put('cpufreq_governor', m.cpufreqGovernor);
  put('cpufreq_driver', m.cpufreqDriver);
  put('tool_version', r.toolVersion);
  put('tagssh_version', m.tagsshVersion);
  if (r.series) {
    put('series_id', r.series.id);
    put('run_index', r.series.index + 1);
    put(
      'repeat',
      r.series.plan.mode === 'fixed' ? `fixed:${r.series.plan.count}` : `until-stable:${r.series.plan.threshold}%:${r.series.plan.min}-${r.series.plan.max}`,
    );
  }
  for (const [k, v] of Object.entries(r.params)) put(`param_${k}`, typeof v === 'object' ? JSON.stringify(v) : (v as PkbValue));
  for (const [param, s] of Object.entries(m.storage ?? {})) {
    const p = `data_disk_${param}`;
    put(`${p}_dir`, s.dir);
    put(`${p}_device`, s.device);
    put(`${p}_fstype`, s.fstype);
    if (s.ebs) {
      put(`${p}_volume_id`, s.ebs.volumeId);
      put(`${p}_type`, s.ebs.volumeType);
      put(`${p}_size`, s.ebs.sizeGiB);
      put(`${p}_iops`, s.ebs.iops);
      put(`${p}_throughput`, s.ebs.throughputMiBps);
    } else if (s.efs) {
      put(`${p}_type`, 'efs');
      put(`${p}_efs_id`, s.efs.fileSystemId);
      put(`${p}_throughput_mode`, s.efs.throughputMode);
      put(`${p}_performance_mode`, s.efs.performanceMode);
      put(`${p}_provisioned_throughput`, s.efs.provisionedMiBps);
    } else put(`${p}_type`, s.unknown ?? 'unknown');
  }
  return md;
}

/** One sample per metric of every successful run; `owner` as PKB's --owner (the user). */
function toPkbSamples(results: BenchResult[], owner: string): PkbSample[] {
  const out: PkbSample[] = [];
  for (const r of results) {
    if (r.status !== 'ok') continue;
    const metadata = pkbMetadata(r);
    const timestamp = Date.parse(r.endedAt ?? r.startedAt) / 1000;
    for (const m of r.metrics)
      out.push({
        metric: m.label,
        value: m.value,
        unit: m.unit,
        metadata: { ...metadata, metric_key: m.key },
        timestamp,
        test: r.preset,
        product_name: 'TagSSH',
        official: false,
        owner,
        run_uri: r.batchId ?? r.id,
        sample_uri: `${r.id}:${m.key}`,
      });
  }
  return out;
}

/** Newline-delimited JSON, as PKB's NewlineDelimitedJSONPublisher writes it. */
export function toPkbJsonLines(results: BenchResult[], owner: string): string {
  return toPkbSamples(results, owner)
    .map((s) => JSON.stringify(s) + '\n')
    .join('');
}
