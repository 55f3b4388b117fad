import { existsSync } from 'node:fs';
import { AppError } from '../../../../common/errors.js';
import { portTag } from '../../../../common/vocab.js';
import type { Instance } from '../../../../common/model/instance.js';
import { hostCidr } from '../../../../common/securityGroups/diagnosis.js';
import { instanceNamed } from '../../../aws/instances/lookup.js';
import { configuredMyIpUrl, lookUpMyIp } from '../../../aws/securityGroups/myIp.js';
import type { AwsScope } from '../../../aws/config/scope.js';
import {
  allowAddress,
  cidrContains,
  coversPort,
  groupForNewRule,
  groupsOf,
  revokeRules,
  ruleDescription,
  ruleText,
  singleAddressCidr,
  TAGSSH_DESCRIPTION_PREFIX,
  verdictFor,
  type SgRule,
} from '../../../aws/securityGroups/securityGroups.js';
import { settingsPath } from '../../../store/settings.js';
import type { AllowFlags, RevokeFlags, SgFlags } from './flags.js';
import { confirmOrYes } from '../../confirm.js';
import { printJson, printable, table } from '../../output.js';

// The bodies of `tagssh sg …` (register.ts declares the flags).

async function settings(): Promise<{ port: number }> {
  if (!existsSync(settingsPath())) return { port: 22 };
  const { jsonSettingsStore } = await import('../../../store/settings.js');
  return { port: (await jsonSettingsStore().get()).port };
}

async function sshPort(instance: Instance, flag: number | undefined): Promise<number> {
  return flag ?? portTag(instance.tags) ?? (await settings()).port;
}

function label(i: Instance): string {
  return i.name === null ? i.id : `${i.name} (${i.id})`;
}

export async function listRules(name: string, flags: SgFlags, scope: AwsScope): Promise<void> {
  const instance = await instanceNamed(name, scope, flags.pick);
  const found = await groupsOf(instance, scope);
  const port = await sshPort(instance, flags.port);
  if (flags.json) {
    printJson({
      instanceId: instance.id,
      region: instance.region,
      port,
      groups: found.groups,
      rules: found.rules.map((r) => ({ ...r, ssh: coversPort(r, port) })),
    });
    return;
  }
  const rows = found.rules.map((r) => [
    r.groupId,
    r.protocol === '-1' ? 'all' : r.protocol,
    r.protocol === '-1' || r.fromPort === null ? 'all' : r.fromPort === r.toPort ? String(r.fromPort) : `${r.fromPort}-${r.toPort}`,
    r.source.kind === 'cidr' ? r.source.cidr : r.source.kind === 'prefix-list' ? `prefix list ${r.source.id}` : `group ${r.source.id}`,
    coversPort(r, port) ? 'yes' : '',
    printable(r.description ?? ''),
  ]);
  process.stdout.write(`Security groups of ${printable(label(instance))}: ${found.groups.map((g) => `${g.id} (${printable(g.name)})`).join(', ') || 'none'}\n`);
  process.stdout.write(rows.length ? table(['GROUP', 'PROTOCOL', 'PORTS', 'SOURCE', `SSH (${port})`, 'DESCRIPTION'], rows) : 'No ingress rules.\n');
}

export async function allowMyIp(name: string, flags: AllowFlags, scope: AwsScope): Promise<void> {
  // Check the flag before any request: a wrong --ip costs nothing.
  const given = flags.ip !== undefined ? singleAddressCidr(flags.ip) : undefined;
  const instance = await instanceNamed(name, scope, flags.pick);
  const port = await sshPort(instance, flags.port);
  const cidr = given ?? hostCidr(await lookUpMyIp(await configuredMyIpUrl(flags.myIpUrl)));
  const ip = cidr.replace(/\/\d+$/, '');
  const found = await groupsOf(instance, scope);
  if (found.groups.length === 0) throw new AppError('NOT_FOUND', `${label(instance)} has no security group.`, 'Attach one in the EC2 console first.');
  const { verdict, rule } = verdictFor(found.rules, ip, port);
  if (verdict === 'allowed' && rule && !flags.group) {
    if (flags.json) printJson({ added: false, groupId: rule.groupId, cidr, port, rule: ruleText(rule) });
    else process.stdout.write(`${ip} is already allowed on port ${port}: ${ruleText(rule)}. Nothing to add.\n`);
    return;
  }
  const groupId = groupForNewRule(found, port, flags.group);
  if (!groupId) {
    throw new AppError(
      'INVALID_INPUT',
      `${label(instance)} has ${found.groups.length} security groups and none has a rule for port ${port}: which one should get the rule?`,
      `Choose one with --group (${found.groups.map((g) => g.id).join(', ')}).`,
    );
  }
  const description = ruleDescription();
  await confirmOrYes(`Add an inbound rule to ${groupId}: TCP port ${port} from ${cidr} ("${description}")?`, flags.yes);
  const result = await allowAddress(instance, groupId, cidr, port, scope, description);
  if (flags.json) printJson(result);
  else process.stdout.write(`Added: ${groupId} tcp ${port} from ${cidr} (${description}).\n`);
}

export async function revoke(name: string, flags: RevokeFlags, scope: AwsScope): Promise<void> {
  if ((flags.ip === undefined) === !flags.allTagssh)
    throw new AppError(
      'INVALID_INPUT',
      'Say which rules to remove: --ip ADDRESS or --all-tagssh (one of them).',
      'Example: tagssh sg revoke web-1 --ip 203.0.113.7',
    );
  const cidr = flags.ip !== undefined ? singleAddressCidr(flags.ip) : undefined;
  const instance = await instanceNamed(name, scope, flags.pick);
  const found = await groupsOf(instance, scope);
  const port = flags.port;
  const chosen: SgRule[] = found.rules.filter((r) => {
    if (r.source.kind !== 'cidr') return false;
    if (port !== undefined && !coversPort(r, port)) return false;
    // The same single address however it is written (2001:db8::7 and 2001:db8:0::7 alike).
    if (cidr) return r.source.cidr.split('/')[1] === cidr.split('/')[1] && cidrContains(r.source.cidr, cidr.replace(/\/\d+$/, ''));
    return (r.description ?? '').startsWith(TAGSSH_DESCRIPTION_PREFIX);
  });
  if (chosen.length === 0) {
    throw new AppError(
      'NOT_FOUND',
      cidr ? `No rule for ${cidr} in the security groups of ${label(instance)}.` : `No rule added by TagSSH in the security groups of ${label(instance)}.`,
      `\`tagssh sg list ${name.includes(' ') ? JSON.stringify(name) : name}\` shows the rules.`,
    );
  }
  await confirmOrYes(`Remove ${chosen.length === 1 ? 'this rule' : `these ${chosen.length} rules`}: ${chosen.map(ruleText).join('; ')}?`, flags.yes);
  await revokeRules(instance, chosen, scope);
  if (flags.json) printJson({ removed: chosen });
  else process.stdout.write(chosen.map((r) => `Removed: ${printable(ruleText(r))}\n`).join(''));
}
