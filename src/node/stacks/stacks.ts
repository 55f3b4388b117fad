import type * as CfnModule from '@aws-sdk/client-cloudformation';
import type { CloudFormationClient, Stack } from '@aws-sdk/client-cloudformation';
import type * as Ec2Module from '@aws-sdk/client-ec2';
import { isIP } from 'node:net';
import { AppError } from '../../common/errors.js';
import { cjsExports } from '../aws/ec2/interop.js';
import type { AwsScope } from '../aws/config/scope.js';
import { sdkAppError, sdkClientConfig } from '../aws/config/sdkClients.js';
import { pollUntil } from '../aws/instances/wait.js';
import { isArm } from './prices.js';
import { benchPairTemplate } from './templates/benchPair.js';

// Benchmark stacks: CloudFormation stacks made from templates kept in this repo, tagged so that
// `tagssh stack list` shows only them and `tagssh stack down` deletes nothing else.

/** The stack tag naming the template a stack was made from; its presence marks a TagSSH stack. */
const TEMPLATE_TAG = 'tagssh:template';

interface TemplateDef {
  name: string;
  description: string;
  body: object;
  /** Instances the template starts (for the cost estimate). */
  instanceCount: number;
}

const TEMPLATES: Readonly<Record<string, TemplateDef>> = {
  'bench-pair': { name: 'bench-pair', description: benchPairTemplate.Description, body: benchPairTemplate, instanceCount: 2 },
};

export function templateNamed(name: string): TemplateDef {
  const t = TEMPLATES[name];
  if (!t) throw new AppError('INVALID_INPUT', `There is no stack template "${name}".`, `Templates: ${Object.keys(TEMPLATES).join(', ')}.`);
  return t;
}

/** CloudFormation's rule for stack names. */
export function checkStackName(name: string, flag = '--name'): string {
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(name))
    throw new AppError(
      'INVALID_INPUT',
      `${flag} ${JSON.stringify(name)} is not a valid stack name.`,
      'Use letters, digits and hyphens, starting with a letter (at most 128).',
    );
  return name;
}

/** "m5.large", "c6gn.xlarge", "u-6tb1.metal": the shape EC2 instance types have. */
export function checkInstanceType(type: string): string {
  if (!/^[a-z][a-z0-9-]*\.[a-z0-9]+$/.test(type))
    throw new AppError('INVALID_INPUT', `--type ${JSON.stringify(type)} is not an EC2 instance type.`, 'Pass a type such as m5.large or c6i.xlarge.');
  return type;
}

interface StackSummary {
  name: string;
  template: string;
  status: string;
  created: string | null;
  instanceType: string | null;
  reason: string | null;
}

function summaryOf(s: Stack): StackSummary {
  return {
    name: s.StackName ?? '',
    template: s.Tags?.find((t) => t.Key === TEMPLATE_TAG)?.Value ?? '',
    status: s.StackStatus ?? '',
    created: s.CreationTime ? s.CreationTime.toISOString() : null,
    instanceType: s.Parameters?.find((p) => p.ParameterKey === 'InstanceType')?.ParameterValue ?? null,
    reason: s.StackStatusReason ?? null,
  };
}

interface Clients {
  cfn: CloudFormationClient;
  sdk: typeof CfnModule;
  call: <T>(run: () => Promise<T>) => Promise<T>;
  close(): void;
}

async function cfnClient(scope: AwsScope, region: string): Promise<Clients> {
  const sdk = cjsExports(await import('@aws-sdk/client-cloudformation'));
  const cfn = new sdk.CloudFormationClient(await sdkClientConfig(scope, region, 'other'));
  return {
    cfn,
    sdk,
    call: async (run) => {
      try {
        return await run();
      } catch (e) {
        throw sdkAppError(e, 'CloudFormation', region, `cloudformation.${region}`, scope.profile);
      }
    },
    close: () => cfn.destroy(),
  };
}

function isMissing(e: unknown): boolean {
  return e instanceof Error && /does not exist/i.test(e.message);
}

/** The stack as CloudFormation reports it now, or null when there is none of that name. */
async function describe(c: Clients, name: string): Promise<Stack | null> {
  return c.call(async () => {
    try {
      const res = await c.cfn.send(new c.sdk.DescribeStacksCommand({ StackName: name }));
      return res.Stacks?.[0] ?? null;
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  });
}

/** The widest blocks taken without --allow-wide-ssh-cidr: a /16 holds 65 536 addresses, an IPv6 /48 a whole site. */
const WIDEST_SSH_PREFIX = { 4: 16, 6: 48 } as const;

/** A CIDR SSH may come from: never the whole internet; wider than /16 (IPv4) or /48 (IPv6) only when `wideOk`. */
export function checkSshCidr(cidr: string, wideOk = false): string {
  const m = /^([0-9a-fA-F:.]+)\/(\d{1,3})$/.exec(cidr.trim());
  const family = m ? isIP(m[1]!) : 0;
  if (!m || !family || Number(m[2]) > (family === 4 ? 32 : 128))
    throw new AppError(
      'INVALID_INPUT',
      `--ssh-cidr ${JSON.stringify(cidr)} is not a CIDR block.`,
      'Pass e.g. --ssh-cidr 203.0.113.7/32, or leave it out to allow your current public IP only.',
    );
  if (Number(m[2]) === 0)
    throw new AppError(
      'INVALID_INPUT',
      `--ssh-cidr ${cidr} would open SSH to the whole internet; TagSSH does not make such stacks.`,
      'Leave --ssh-cidr out (your current IP only) or name your own network, e.g. --ssh-cidr 203.0.113.0/24.',
    );
  const widest = WIDEST_SSH_PREFIX[family as 4 | 6];
  if (Number(m[2]) < widest && !wideOk)
    throw new AppError(
      'INVALID_INPUT',
      `--ssh-cidr ${cidr.trim()} opens SSH to ${family === 4 ? `${2 ** (32 - Number(m[2]))} addresses` : `a block wider than a /${widest} site`}: wider than /${widest}, the widest TagSSH takes without confirmation.`,
      `If that is really your network, add --allow-wide-ssh-cidr; otherwise name a narrower block, e.g. --ssh-cidr ${family === 4 ? '203.0.113.0/24' : '2001:db8:1::/48'}.`,
    );
  return cidr.trim();
}

export async function listStacks(scope: AwsScope, region: string): Promise<StackSummary[]> {
  const c = await cfnClient(scope, region);
  try {
    const out: StackSummary[] = [];
    let token: string | undefined;
    do {
      const res = await c.call(() => c.cfn.send(new c.sdk.DescribeStacksCommand(token ? { NextToken: token } : {})));
      for (const s of res.Stacks ?? []) if (s.Tags?.some((t) => t.Key === TEMPLATE_TAG) && s.StackStatus !== 'DELETE_COMPLETE') out.push(summaryOf(s));
      token = res.NextToken;
    } while (token);
    return out;
  } finally {
    c.close();
  }
}

interface UpPlan {
  template: TemplateDef;
  stackName: string;
  region: string;
  instanceType: string;
  keyName: string | null;
  sshCidr: string;
  efs: boolean;
  vpcId: string;
  subnetId: string;
  az: string;
}

/** Checks everything that can be checked before asking: the type exists here, no stack of that name, a subnet to use. */
export async function planUp(
  scope: AwsScope,
  region: string,
  o: { template: string; stackName: string; instanceType: string; keyName: string | null; sshCidr: string; efs: boolean; subnetId?: string },
): Promise<UpPlan> {
  const template = templateNamed(o.template);
  checkInstanceType(o.instanceType);
  const ec2sdk: typeof Ec2Module = cjsExports(await import('@aws-sdk/client-ec2'));
  const ec2 = new ec2sdk.EC2Client(await sdkClientConfig(scope, region, 'ec2'));
  const c = await cfnClient(scope, region);
  const ec2call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      const err = e as { name?: string };
      if (err.name === 'InvalidInstanceType' || err.name === 'InvalidParameterValue')
        throw new AppError(
          'INVALID_INPUT',
          `--type ${o.instanceType} is not offered in ${region}.`,
          'Pass an instance type this region offers (`aws ec2 describe-instance-type-offerings`).',
        );
      if (err.name?.startsWith('InvalidSubnetID'))
        throw new AppError(
          'NOT_FOUND',
          `--subnet ${o.subnetId} does not exist in ${region}.`,
          'Pass a subnet of this region (`aws ec2 describe-subnets`), or leave --subnet out to use a default subnet.',
        );
      throw sdkAppError(e, 'EC2', region, `ec2.${region}`, scope.profile);
    }
  };
  try {
    await ec2call(() => ec2.send(new ec2sdk.DescribeInstanceTypesCommand({ InstanceTypes: [o.instanceType as never] })));
    const existing = await describe(c, o.stackName);
    if (existing) {
      throw new AppError(
        'INVALID_INPUT',
        `A stack named ${o.stackName} already exists in ${region} (${existing.StackStatus}).`,
        existing.Tags?.some((t) => t.Key === TEMPLATE_TAG)
          ? `Delete it first with \`tagssh stack down ${o.stackName}\`, or choose another --name.`
          : 'Choose another --name.',
      );
    }
    const subnets = await ec2call(() =>
      ec2.send(new ec2sdk.DescribeSubnetsCommand(o.subnetId ? { SubnetIds: [o.subnetId] } : { Filters: [{ Name: 'default-for-az', Values: ['true'] }] })),
    );
    const list = (subnets.Subnets ?? [])
      .filter((s) => s.SubnetId && s.VpcId)
      .sort((a, b) => (a.AvailabilityZone ?? '').localeCompare(b.AvailabilityZone ?? ''));
    const subnet = list[0];
    if (!subnet)
      throw new AppError(
        'NOT_FOUND',
        `No default subnet in ${region} to put the stack in.`,
        'Pass --subnet subnet-… (one subnet, so both instances share its AZ).',
      );
    return {
      template,
      stackName: o.stackName,
      region,
      instanceType: o.instanceType,
      keyName: o.keyName,
      sshCidr: o.sshCidr,
      efs: o.efs,
      vpcId: subnet.VpcId!,
      subnetId: subnet.SubnetId!,
      az: subnet.AvailabilityZone ?? '',
    };
  } finally {
    ec2.destroy();
    c.close();
  }
}

const imageParameter = (type: string) => `/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-${isArm(type) ? 'arm64' : 'x86_64'}`;

/** Creates the stack and waits for CREATE_COMPLETE; a failure names CloudFormation's reasons. */
export async function stackUp(scope: AwsScope, plan: UpPlan, onProgress: (msg: string) => void, timeoutMs?: number): Promise<StackSummary> {
  const c = await cfnClient(scope, plan.region);
  try {
    const params: Record<string, string> = {
      InstanceType: plan.instanceType,
      ImageId: imageParameter(plan.instanceType),
      KeyName: plan.keyName ?? '',
      VpcId: plan.vpcId,
      SubnetId: plan.subnetId,
      SshCidr: plan.sshCidr,
      WithEfs: plan.efs ? 'true' : 'false',
    };
    await c.call(() =>
      c.cfn.send(
        new c.sdk.CreateStackCommand({
          StackName: plan.stackName,
          TemplateBody: JSON.stringify(plan.template.body),
          Parameters: Object.entries(params).map(([ParameterKey, ParameterValue]) => ({ ParameterKey, ParameterValue })),
          Tags: [{ Key: TEMPLATE_TAG, Value: plan.template.name }],
          OnFailure: 'DELETE',
        }),
      ),
    );
    return await pollUntil(
      `stack ${plan.stackName} to be created`,
      async (elapsed) => {
        const s = await describe(c, plan.stackName);
        const status = s?.StackStatus ?? 'DELETE_COMPLETE';
        if (status === 'CREATE_COMPLETE') return summaryOf(s!);
        if (status !== 'CREATE_IN_PROGRESS')
          throw new AppError(
            'AWS_API',
            `Stack ${plan.stackName} was not created (${status}): ${await failureReasons(c, plan.stackName)}`,
            'Fix the cause, then run `tagssh stack up` again (a failed stack is deleted by itself).',
          );
        const done = await resourcesDone(c, plan.stackName);
        onProgress(`Creating ${plan.stackName}: ${done} resources ready… (${Math.round(elapsed / 1000)} s)`);
        return undefined;
      },
      timeoutMs ? { timeoutMs } : { timeoutMs: 30 * 60_000 },
    );
  } finally {
    c.close();
  }
}

async function resourcesDone(c: Clients, name: string): Promise<number> {
  try {
    const res = await c.cfn.send(new c.sdk.DescribeStackResourcesCommand({ StackName: name }));
    return (res.StackResources ?? []).filter((r) => r.ResourceStatus === 'CREATE_COMPLETE').length;
  } catch {
    return 0;
  }
}

async function failureReasons(c: Clients, name: string): Promise<string> {
  try {
    const res = await c.cfn.send(new c.sdk.DescribeStackEventsCommand({ StackName: name }));
    const reasons = (res.StackEvents ?? [])
      .filter((e) => /FAILED/.test(e.ResourceStatus ?? '') && e.ResourceStatusReason)
      .map((e) => `${e.LogicalResourceId}: ${e.ResourceStatusReason}`);
    return reasons.slice(0, 3).join('; ') || 'no reason given';
  } catch {
    return 'no reason given';
  }
}

/** The stack, refused unless TagSSH made it (its template tag). */
export async function tagsshStack(scope: AwsScope, region: string, name: string): Promise<StackSummary> {
  const c = await cfnClient(scope, region);
  try {
    const s = await describe(c, name);
    if (!s || s.StackStatus === 'DELETE_COMPLETE')
      throw new AppError('NOT_FOUND', `No stack named ${name} in ${region}.`, '`tagssh stack list` shows the stacks TagSSH made.');
    if (!s.Tags?.some((t) => t.Key === TEMPLATE_TAG))
      throw new AppError(
        'INVALID_INPUT',
        `Stack ${name} was not made by TagSSH (it has no ${TEMPLATE_TAG} tag); TagSSH deletes only its own stacks.`,
        'Delete it in the CloudFormation console or with `aws cloudformation delete-stack` if you really mean to.',
      );
    return summaryOf(s);
  } finally {
    c.close();
  }
}

/** Deletes a TagSSH stack and waits until it is gone. */
export async function stackDown(scope: AwsScope, region: string, name: string, onProgress: (msg: string) => void, timeoutMs?: number): Promise<void> {
  const c = await cfnClient(scope, region);
  try {
    await c.call(() => c.cfn.send(new c.sdk.DeleteStackCommand({ StackName: name })));
    await pollUntil(
      `stack ${name} to be deleted`,
      async (elapsed) => {
        const s = await describe(c, name);
        const status = s?.StackStatus ?? 'DELETE_COMPLETE';
        if (status === 'DELETE_COMPLETE') return true;
        if (status === 'DELETE_FAILED')
          throw new AppError(
            'AWS_API',
            `Stack ${name} could not be deleted: ${await failureReasons(c, name)}`,
            'Remove what blocks it in the console, then run `tagssh stack down` again.',
          );
        onProgress(`Deleting ${name}: ${status}… (${Math.round(elapsed / 1000)} s)`);
        return undefined;
      },
      timeoutMs ? { timeoutMs } : { timeoutMs: 30 * 60_000 },
    );
  } finally {
    c.close();
  }
}

/** The template as CloudFormation JSON (for `tagssh stack template NAME` and the aws CLI). */
export function templateJson(name: string): string {
  return `${JSON.stringify(templateNamed(name).body, null, 2)}\n`;
}
