import type * as SsmModule from '@aws-sdk/client-ssm';
import type { GetCommandInvocationCommandOutput, SSMClient } from '@aws-sdk/client-ssm';
import { AppError, toAppError } from '../../common/errors.js';
import type { BoundPreset } from '../../common/bench/preset.js';
import type { BenchHostInfo, BenchResult } from '../../common/bench/result.js';
import type { Instance } from '../../common/model/instance.js';
import { shQuote } from '../../common/shell.js';
import { ec2For } from '../aws/config/clients.js';
import { cjsExports } from '../aws/ec2/interop.js';
import type { AwsScope } from '../aws/config/scope.js';
import { sdkAppError, sdkClientConfig } from '../aws/config/sdkClients.js';
import { pollUntil } from '../aws/instances/wait.js';
import { runDirFor } from './remote.js';
import { applyParsed, newRunId } from './runResult.js';
import type { ResultsStore } from './store.js';
import type { SeriesInfo } from '../../common/bench/repeat.js';

// Fleets through AWS Systems Manager: past a few dozen hosts, Run Command instead of SSH
// fan-out. The preset's script — the very one an SSH run starts (bind().script) — goes out once
// with SendCommand (AWS-RunShellScript) to every managed node the targets match, SSM's own
// MaxConcurrency/MaxErrors pacing it; the runner polls ListCommandInvocations for per-node
// progress, then reads each node's output (GetCommandInvocation), parses it with the preset's
// parser and saves one result per node, as an SSH run does.

/** SendCommand targets: `tag:KEY=V1[,V2]` or `instanceids=i-…[,i-…]`. */
interface SsmTarget {
  Key: string;
  Values: string[];
}

export function parseTargets(spec: string): SsmTarget[] {
  const m = /^(tag:[^=]{1,128}|instanceids|resource-groups:Name)=(.+)$/i.exec(spec.trim());
  const values = m
    ? m[2]!
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : [];
  if (!m || values.length === 0) {
    throw new AppError(
      'INVALID_INPUT',
      `--targets ${JSON.stringify(spec)} is not a Systems Manager target.`,
      'Use --targets tag:KEY=VALUE (e.g. tag:env=staging; comma-separate several values) or --targets instanceids=i-…,i-….',
    );
  }
  const key = m[1]!.toLowerCase() === 'instanceids' ? 'InstanceIds' : m[1]!;
  if (key === 'InstanceIds' && values.some((v) => !/^(i|mi)-[0-9a-f]{8,17}$/.test(v)))
    throw new AppError('INVALID_INPUT', `--targets instanceids= takes instance ids (i-…); got ${JSON.stringify(m[2])}.`);
  if (values.length > 50) throw new AppError('INVALID_INPUT', '--targets takes at most 50 values.', 'Tag the nodes and target the tag instead.');
  return [{ Key: key, Values: values }];
}

/** MaxConcurrency / MaxErrors: a count or a percentage, as SSM takes them. */
export function checkPacing(v: string, flag: string): string {
  if (!/^([1-9]\d{0,3}|0|([1-9]\d?|100)%)$/.test(v.trim()) || (flag === '--max-concurrency' && v.trim() === '0')) {
    throw new AppError('INVALID_INPUT', `${flag} ${JSON.stringify(v)} is not a count or a percentage.`, `Pass e.g. ${flag} 10 or ${flag} 25%.`);
  }
  return v.trim();
}

/** `bucket/prefix` → SSM's OutputS3BucketName / OutputS3KeyPrefix. */
export function parseOutputS3(v: string): { bucket: string; prefix: string } {
  const m = /^(?:s3:\/\/)?([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(v.trim());
  if (!m) throw new AppError('INVALID_INPUT', `--output-s3 ${JSON.stringify(v)} is not a bucket/prefix.`, 'Pass e.g. --output-s3 my-bucket/tagssh-runs.');
  return { bucket: m[1]!, prefix: (m[2] ?? '').replace(/\/+$/, '') };
}

/**
 * The shell line SSM runs: the preset's script, byte for byte (base64, so no quoting of its own
 * can break), written to a private run directory and started with /bin/sh like an SSH run; the
 * directory goes when it ends, and the script's exit status is the command's.
 */
export function fleetCommand(script: string, runId: string): string {
  const d = shQuote(runDirFor(runId));
  const b64 = Buffer.from(script, 'utf8').toString('base64');
  return `umask 077 && mkdir ${d} && printf '%s' ${shQuote(b64)} | base64 -d > ${d}/run.sh || exit 197\nsh ${d}/run.sh; rc=$?\nrm -rf -- ${d}\nexit $rc`;
}

/** SSM's per-node states that are final. */
const FINAL = new Set([
  'Success',
  'Failed',
  'Cancelled',
  'TimedOut',
  'DeliveryTimedOut',
  'ExecutionTimedOut',
  'Undeliverable',
  'Terminated',
  'InvalidPlatform',
  'AccessDenied',
]);

/** SSM truncates StandardOutputContent at this many characters (the rest is in S3 when asked). */
export const SSM_OUTPUT_LIMIT = 24_000;

interface Invocation {
  status: string;
  statusDetails?: string;
  stdout: string;
  stderr: string;
  responseCode: number | null;
  s3Url?: string;
}

/** One node's invocation as a result: parsed like an SSH run's output, or the SSM state that ended it. */
export function resultFromInvocation(base: BenchResult, bound: BoundPreset, inv: Invocation): BenchResult {
  const r: BenchResult = { ...base, raw: { stdout: inv.stdout, stderr: inv.stderr }, endedAt: new Date().toISOString() };
  if (inv.status === 'Success' || inv.status === 'Failed') {
    applyParsed(r, bound.preset.parse(inv.stdout, inv.stderr, inv.responseCode), inv.responseCode);
  } else {
    r.status = inv.status === 'Cancelled' ? 'cancelled' : /TimedOut/.test(inv.status) ? 'timeout' : 'failed';
    r.exitCode = inv.responseCode;
    r.error = {
      code: r.status === 'timeout' ? 'TIMEOUT' : 'REMOTE_FAILED',
      message: `Systems Manager ended the command on ${base.instance.label}: ${inv.status}${inv.statusDetails && inv.statusDetails !== inv.status ? ` (${inv.statusDetails})` : ''}.`,
      hint:
        inv.status === 'Undeliverable' || inv.status === 'DeliveryTimedOut'
          ? 'Is the SSM agent running and the node online (`aws ssm describe-instance-information`)?'
          : 'See the command in the Systems Manager console (Run Command history).',
    };
  }
  if (inv.stdout.length >= SSM_OUTPUT_LIMIT)
    r.notes = [
      ...r.notes,
      `Systems Manager returned only the first ${SSM_OUTPUT_LIMIT} characters of the output${inv.s3Url ? `; all of it is at ${inv.s3Url}` : '; pass --output-s3 to keep all of it'}.`,
    ];
  return r;
}

export interface FleetRequest {
  run: BoundPreset;
  targets: SsmTarget[];
  region: string;
  scope: AwsScope;
  maxConcurrency?: string;
  maxErrors?: string;
  outputS3?: { bucket: string; prefix: string };
  /** Per-node execution timeout (s); default: the preset's estimate × 3 + 2 min. */
  timeoutSeconds?: number;
  store?: ResultsStore;
  onNode?: (node: { instanceId: string; label: string; status: string }) => void;
  onSent?: (commandId: string, targets: SsmTarget[]) => void;
  signal?: AbortSignal;
  /** Repeated fleet runs: the series each node's result belongs to (see fleetSeries.ts). */
  series?: (instanceId: string) => SeriesInfo;
  /** Adds the AWS lookups (AMI name) to each result before it is saved. */
  enrich?: (r: BenchResult) => Promise<void>;
}

function hostOf(id: string, region: string, i: Instance | undefined): BenchHostInfo {
  if (!i) return { label: id, host: `ssm:${id}`, instanceId: id, region };
  return { label: i.name ?? i.id, host: `ssm:${id}`, instanceId: id, name: i.name, type: i.type, az: i.az, ami: i.imageId, region };
}

/** What the steps of a fleet run share: the request, the SDK and its client, and the error wording. */
interface Fleet {
  req: FleetRequest;
  sdk: typeof SsmModule;
  ssm: SSMClient;
  /** Runs an SSM call, its failure worded as an AppError about SSM in the request's region. */
  call: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** Sends the preset to the matching nodes, follows them, and returns (and saves) one result per node. */
export async function runFleet(req: FleetRequest): Promise<BenchResult[]> {
  const { run, region, scope } = req;
  assertFleetable(run);
  const sdk: typeof SsmModule = cjsExports(await import('@aws-sdk/client-ssm'));
  const ssm: SSMClient = new sdk.SSMClient(await sdkClientConfig(scope, region, 'other'));
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw sdkAppError(e, 'SSM', region, `ssm.${region}`, scope.profile);
    }
  };
  const fleet: Fleet = { req, sdk, ssm, call };
  try {
    const batchId = newRunId();
    const startedAt = new Date().toISOString();
    const timeoutSeconds = req.timeoutSeconds ?? Math.min(172_800, Math.max(30, Math.round(run.estimateSeconds() * 3 + 120)));
    const script = run.script({ runId: batchId, runDir: runDirFor(batchId) });
    const commandId = await sendCommand(fleet, script, batchId, timeoutSeconds);
    const { nodes, names } = await followNodes(fleet, commandId, timeoutSeconds);
    if (nodes.length === 0)
      throw new AppError(
        'NOT_FOUND',
        `No managed node matches ${req.targets.map((t) => `${t.Key}=${t.Values.join(',')}`).join(' ')} in ${region}.`,
        'Check the tag and that the nodes run the SSM agent (`aws ssm describe-instance-information`).',
      );

    const results: BenchResult[] = [];
    for (const id of nodes) {
      const base: BenchResult = {
        id: newRunId(),
        batchId,
        preset: run.preset.id,
        params: run.params,
        status: 'running',
        instance: hostOf(id, region, names.get(id)),
        startedAt,
        metrics: [],
        facts: { 'ssm-command-id': commandId },
        notes: [],
        raw: { stdout: '', stderr: '' },
        script,
        ...(req.series ? { series: req.series(id) } : {}),
      };
      const r = await nodeResult(fleet, commandId, id, base);
      await req.enrich?.(r).catch(() => undefined);
      req.store?.save(r);
      results.push(r);
    }
    return results;
  } finally {
    ssm.destroy();
  }
}

/** A pair preset or one with a local upload cannot go through Run Command. */
function assertFleetable(run: BoundPreset): void {
  if (run.peer)
    throw new AppError(
      'INVALID_INPUT',
      `${run.preset.title} runs on a pair of instances; fleets through Systems Manager run single-host presets.`,
      'Run it over SSH: tagssh bench iperf3 NAME --peer PEER.',
    );
  if (run.upload())
    throw new AppError(
      'INVALID_INPUT',
      `${run.preset.title} with a local file to upload can't go through Systems Manager.`,
      'Run it over SSH instead (without --ssm).',
    );
}

/** SendCommand with the script to every node the targets match; returns the command id. */
async function sendCommand({ req, sdk, ssm, call }: Fleet, script: string, batchId: string, timeoutSeconds: number): Promise<string> {
  const { run } = req;
  const sent = await call(() =>
    ssm.send(
      new sdk.SendCommandCommand({
        DocumentName: 'AWS-RunShellScript',
        // Named ids go as InstanceIds (what SSM documents for a list of nodes), tags as Targets.
        ...(req.targets[0]?.Key === 'InstanceIds' ? { InstanceIds: req.targets[0].Values } : { Targets: req.targets }),
        Parameters: {
          commands: [fleetCommand(script, batchId)],
          executionTimeout: [String(timeoutSeconds)],
        },
        Comment: `tagssh bench ${run.preset.id} ${batchId}`.slice(0, 100),
        MaxConcurrency: req.maxConcurrency ?? '50',
        MaxErrors: req.maxErrors ?? '0',
        TimeoutSeconds: 600,
        ...(req.outputS3 ? { OutputS3BucketName: req.outputS3.bucket, ...(req.outputS3.prefix ? { OutputS3KeyPrefix: req.outputS3.prefix } : {}) } : {}),
      }),
    ),
  );
  const commandId = sent.Command?.CommandId;
  if (!commandId) throw new AppError('AWS_API', 'Systems Manager accepted the command but returned no command id.');
  req.onSent?.(commandId, req.targets);
  return commandId;
}

/**
 * Per-node states come from ListCommandInvocations. An endpoint without it (moto 5.2 has
 * none) is asked node by node with GetCommandInvocation, for the nodes ListCommands names.
 */
function nodeStatesOf({ sdk, ssm }: Fleet, commandId: string): (ids: string[]) => Promise<Array<{ id: string; status: string }>> {
  let listing = true;
  return async (ids) => {
    if (listing) {
      try {
        return await listInvocations(ssm, sdk, commandId);
      } catch (e) {
        if (!unsupported(e)) throw e;
        listing = false;
      }
    }
    return Promise.all(
      ids.map(async (id) => {
        try {
          return { id, status: (await ssm.send(new sdk.GetCommandInvocationCommand({ CommandId: commandId, InstanceId: id }))).Status ?? 'Pending' };
        } catch (e) {
          if ((e as { name?: string }).name === 'InvocationDoesNotExist') return { id, status: 'Pending' };
          throw e;
        }
      }),
    );
  };
}

/** Polls the command until every node it reached is done, telling each node's changes; a cancel cancels the command. */
async function followNodes(fleet: Fleet, commandId: string, timeoutSeconds: number): Promise<{ nodes: string[]; names: Map<string, Instance> }> {
  const { req, sdk, ssm, call } = fleet;
  const { region, scope } = req;
  const nodeStates = nodeStatesOf(fleet, commandId);
  const seen = new Map<string, string>();
  const names = new Map<string, Instance>();
  const label = (id: string) => names.get(id)?.name ?? id;
  const onAbort = () => void ssm.send(new sdk.CancelCommandCommand({ CommandId: commandId })).catch(() => undefined);
  req.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const nodes = await pollUntil(
      `Systems Manager command ${commandId}`,
      async () => {
        const cmd = (await call(() => ssm.send(new sdk.ListCommandsCommand({ CommandId: commandId })))).Commands?.[0];
        const cmdStatus = cmd?.Status ?? 'Pending';
        const list = await call(() => nodeStates(cmd?.InstanceIds ?? []));
        const fresh = list.map((i) => i.id).filter((id) => !names.has(id));
        if (fresh.length)
          for (const i of await (await ec2For(scope, region)).describeInstances({ ids: fresh }).catch(() => [] as Instance[])) names.set(i.id, i);
        for (const inv of list) {
          if (seen.get(inv.id) !== inv.status) {
            seen.set(inv.id, inv.status);
            req.onNode?.({ instanceId: inv.id, label: label(inv.id), status: inv.status });
          }
        }
        const cmdDone = !['Pending', 'InProgress', 'Cancelling'].includes(cmdStatus);
        if (cmdDone && list.every((i) => FINAL.has(i.status))) return list.map((i) => i.id);
        return undefined;
      },
      { timeoutMs: (timeoutSeconds + 900) * 1000, ...(req.signal ? { signal: req.signal } : {}) },
    );
    return { nodes, names };
  } finally {
    req.signal?.removeEventListener('abort', onAbort);
  }
}

/** One node's result from its invocation's output, or the failure to read it. */
async function nodeResult({ req, sdk, ssm, call }: Fleet, commandId: string, id: string, base: BenchResult): Promise<BenchResult> {
  try {
    const out: GetCommandInvocationCommandOutput = await call(() => ssm.send(new sdk.GetCommandInvocationCommand({ CommandId: commandId, InstanceId: id })));
    return resultFromInvocation(base, req.run, {
      status: out.Status ?? 'Failed',
      ...(out.StatusDetails ? { statusDetails: out.StatusDetails } : {}),
      stdout: out.StandardOutputContent ?? '',
      stderr: out.StandardErrorContent ?? '',
      responseCode: typeof out.ResponseCode === 'number' && out.ResponseCode >= 0 ? out.ResponseCode : null,
      ...(out.StandardOutputUrl ? { s3Url: out.StandardOutputUrl } : {}),
    });
  } catch (e) {
    return { ...base, status: 'failed', error: toAppError(e).toJSON(), endedAt: new Date().toISOString() };
  }
}

async function listInvocations(ssm: SSMClient, sdk: typeof SsmModule, commandId: string): Promise<Array<{ id: string; status: string }>> {
  const out: Array<{ id: string; status: string }> = [];
  let token: string | undefined;
  do {
    const res = await ssm.send(new sdk.ListCommandInvocationsCommand({ CommandId: commandId, ...(token ? { NextToken: token } : {}) }));
    for (const i of res.CommandInvocations ?? []) if (i.InstanceId) out.push({ id: i.InstanceId, status: i.Status ?? 'Pending' });
    token = res.NextToken;
  } while (token);
  return out;
}

/** The endpoint does not implement the operation (an emulator's HTML 404, UnknownOperation…). */
function unsupported(e: unknown): boolean {
  const err = e as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  return (
    err.name === 'SyntaxError' ||
    err.name === 'UnknownOperationException' ||
    err.$metadata?.httpStatusCode === 404 ||
    /Deserialization error|not valid JSON|not implemented/i.test(err.message ?? '')
  );
}
