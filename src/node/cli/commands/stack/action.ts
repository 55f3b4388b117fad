import { AppError } from '../../../../common/errors.js';
import { hostCidr } from '../../../../common/securityGroups/diagnosis.js';
import { configuredMyIpUrl, lookUpMyIp } from '../../../aws/securityGroups/myIp.js';
import type { AwsScope } from '../../../aws/config/scope.js';
import { singleRegion } from '../../../aws/config/sdkClients.js';
import { estimateText } from '../../../stacks/prices.js';
import { checkInstanceType, checkSshCidr, checkStackName, listStacks, planUp, stackDown, stackUp, tagsshStack, templateNamed } from '../../../stacks/stacks.js';
import type { StackDownFlags, StackUpFlags } from './flags.js';
import { confirmOrYes } from '../../confirm.js';
import { printJson, printable, progressLine, table } from '../../output.js';

// The bodies of `tagssh stack …` (register.ts declares the flags).

export async function up(templateName: string, flags: StackUpFlags, scope: AwsScope): Promise<void> {
  // Flags first: a wrong input costs no request.
  const template = templateNamed(templateName);
  const stackName = checkStackName(flags.name ?? template.name);
  const instanceType = checkInstanceType(flags.type!);
  if (flags.allowWideSshCidr && flags.sshCidr === undefined)
    throw new AppError(
      'INVALID_INPUT',
      '--allow-wide-ssh-cidr confirms a wide --ssh-cidr, and none was given.',
      'Pass --ssh-cidr BLOCK with it, or leave both out to allow your current IP only.',
    );
  const sshCidrFlag = flags.sshCidr !== undefined ? checkSshCidr(flags.sshCidr, !!flags.allowWideSshCidr) : undefined;
  if (flags.subnet !== undefined && !/^subnet-[0-9a-f]+$/.test(flags.subnet))
    throw new AppError('INVALID_INPUT', `--subnet ${JSON.stringify(flags.subnet)} is not a subnet id.`, 'Pass an id such as subnet-0123abcd.');
  if (flags.key !== undefined && !/^[\x20-\x7e]{1,255}$/.test(flags.key))
    throw new AppError('INVALID_INPUT', '--key is not an EC2 key pair name.', 'Pass the key pair name as `aws ec2 describe-key-pairs` shows it.');
  const region = await singleRegion(scope);
  const progress = progressLine();
  const sshCidr = sshCidrFlag ?? hostCidr(await lookUpMyIp(await configuredMyIpUrl(flags.myIpUrl), '--ssh-cidr'));
  const plan = await planUp(scope, region, {
    template: template.name,
    stackName,
    instanceType,
    keyName: flags.key ?? null,
    sshCidr,
    efs: !!flags.efs,
    ...(flags.subnet ? { subnetId: flags.subnet } : {}),
  });
  process.stderr.write(
    `Stack ${stackName} (${template.name}) in ${region}, ${plan.az} (${plan.subnetId}): ${template.instanceCount} × ${plan.instanceType} in a placement group${plan.efs ? ', an EFS file system' : ''}; SSH from ${sshCidr}${plan.keyName ? `, key pair ${printable(plan.keyName)}` : ', no key pair (pass --key to log in with one)'}.\n`,
  );
  process.stderr.write(
    `Cost: ${estimateText(plan.instanceType, template.instanceCount)}${plan.efs ? ', plus EFS storage per GB-month' : ''}. It runs until \`tagssh stack down ${stackName}\`.\n`,
  );
  await confirmOrYes(`Create stack ${stackName}?`, flags.yes);
  const done = await stackUp(scope, plan, progress);
  progress.done();
  if (flags.json) printJson(done);
  else process.stdout.write(`Stack ${done.name} is ${done.status}: instances ${stackName}-a and ${stackName}-b (\`tagssh ssh ${stackName}-a\`).\n`);
}

export async function down(name: string, flags: StackDownFlags, scope: AwsScope): Promise<void> {
  checkStackName(name, 'STACK');
  const region = await singleRegion(scope);
  const s = await tagsshStack(scope, region, name);
  await confirmOrYes(`Delete stack ${s.name} (${s.template}${s.instanceType ? `, ${s.instanceType}` : ''}) in ${region} and everything in it?`, flags.yes);
  const progress = progressLine();
  await stackDown(scope, region, name, progress);
  progress.done();
  if (flags.json) printJson({ deleted: name, region });
  else process.stdout.write(`Stack ${name} is deleted.\n`);
}

export async function list(flags: { json?: boolean }, scope: AwsScope): Promise<void> {
  const region = await singleRegion(scope);
  const stacks = await listStacks(scope, region);
  if (flags.json) return printJson(stacks);
  if (stacks.length === 0) {
    process.stdout.write(`No TagSSH stacks in ${region}.\n`);
    return;
  }
  process.stdout.write(
    table(
      ['NAME', 'TEMPLATE', 'TYPE', 'STATUS', 'CREATED'],
      stacks.map((s) => [printable(s.name), printable(s.template), s.instanceType ?? '', s.status, s.created?.replace(/\.\d+Z$/, 'Z') ?? '']),
    ),
  );
}
