import { BlockList, isIP } from 'node:net';
import { userInfo } from 'node:os';
import type * as Ec2SdkModule from '@aws-sdk/client-ec2';
import type { EC2Client, SecurityGroup } from '@aws-sdk/client-ec2';
import type { Instance } from '../../../common/model/instance.js';
import { AppError } from '../../../common/errors.js';
import { hostCidr, type SgDiagnosis, type SgVerdict } from '../../../common/securityGroups/diagnosis.js';
import { cjsExports } from '../ec2/interop.js';
import { shQuote } from '../../../common/shell.js';
import { displayName } from '../instances/lookup.js';
import type { AwsScope } from '../config/scope.js';
import { sdkAppError, sdkClientConfig } from '../config/sdkClients.js';

// The security groups of one instance, read and changed for SSH from the user's own address:
// does an ingress rule on the SSH port cover this IP (IPv4 and IPv6 CIDRs; prefix lists and
// group references can't be judged from here), add `<ip>/32` (or /128) with a description that
// says who and when, and take such rules away again. Never anything wider than one address.

type RuleSource = { kind: 'cidr'; cidr: string } | { kind: 'prefix-list'; id: string } | { kind: 'group'; id: string };

export interface SgRule {
  groupId: string;
  groupName: string;
  /** EC2's IpProtocol: "-1" for all, "tcp", "udp", "icmp", or a number. */
  protocol: string;
  fromPort: number | null;
  toPort: number | null;
  source: RuleSource;
  description: string | null;
}

/** What these functions need of an instance. */
export type InstanceRef = Pick<Instance, 'id' | 'region' | 'name'>;

interface InstanceGroups {
  instance: InstanceRef;
  groups: Array<{ id: string; name: string; vpcId: string | null }>;
  rules: SgRule[];
}

/** Rule descriptions TagSSH writes start with this word (what `revoke --all-tagssh` takes away). */
export const TAGSSH_DESCRIPTION_PREFIX = 'tagssh ';

/** Flattens DescribeSecurityGroups' ingress permissions into one rule per source. */
export function rulesOf(groups: SecurityGroup[]): SgRule[] {
  const out: SgRule[] = [];
  for (const g of groups) {
    for (const p of g.IpPermissions ?? []) {
      const base = {
        groupId: g.GroupId ?? '',
        groupName: g.GroupName ?? '',
        protocol: String(p.IpProtocol ?? '-1'),
        fromPort: p.FromPort ?? null,
        toPort: p.ToPort ?? null,
      };
      for (const r of p.IpRanges ?? []) if (r.CidrIp) out.push({ ...base, source: { kind: 'cidr', cidr: r.CidrIp }, description: r.Description ?? null });
      for (const r of p.Ipv6Ranges ?? []) if (r.CidrIpv6) out.push({ ...base, source: { kind: 'cidr', cidr: r.CidrIpv6 }, description: r.Description ?? null });
      for (const r of p.PrefixListIds ?? [])
        if (r.PrefixListId) out.push({ ...base, source: { kind: 'prefix-list', id: r.PrefixListId }, description: r.Description ?? null });
      for (const r of p.UserIdGroupPairs ?? [])
        if (r.GroupId) out.push({ ...base, source: { kind: 'group', id: r.GroupId }, description: r.Description ?? null });
    }
  }
  return out;
}

/** True when the rule lets TCP to `port` through (any protocol, or TCP with the port in range). */
export function coversPort(rule: Pick<SgRule, 'protocol' | 'fromPort' | 'toPort'>, port: number): boolean {
  if (rule.protocol === '-1') return true;
  if (rule.protocol !== 'tcp' && rule.protocol !== '6') return false;
  if (rule.fromPort === null || rule.toPort === null) return true;
  return rule.fromPort <= port && port <= rule.toPort;
}

/** True when the CIDR contains the address (same family only). */
export function cidrContains(cidr: string, ip: string): boolean {
  const [net, bits] = cidr.split('/');
  const family = isIP(net ?? '');
  if (!family || family !== isIP(ip)) return false;
  const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
  const list = new BlockList();
  try {
    list.addSubnet(net!, prefix, family === 4 ? 'ipv4' : 'ipv6');
  } catch {
    return false;
  }
  return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** Does any rule let `ip` in on `port`? A CIDR match decides; otherwise a prefix list or group reference leaves it open. */
export function verdictFor(rules: SgRule[], ip: string, port: number): { verdict: SgVerdict; rule: SgRule | null } {
  const onPort = rules.filter((r) => coversPort(r, port));
  const match = onPort.find((r) => r.source.kind === 'cidr' && cidrContains(r.source.cidr, ip));
  if (match) return { verdict: 'allowed', rule: match };
  const maybe = onPort.find((r) => r.source.kind !== 'cidr');
  if (maybe) return { verdict: 'unknown', rule: maybe };
  return { verdict: 'blocked', rule: null };
}

/** The group a new SSH rule goes to: --group, else the first with a rule on the port, else the only group; null when the user must choose. */
export function groupForNewRule(found: Pick<InstanceGroups, 'groups' | 'rules'>, port: number, wanted?: string): string | null {
  if (wanted) {
    if (!found.groups.some((g) => g.id === wanted)) {
      throw new AppError(
        'INVALID_INPUT',
        `--group ${wanted} is not one of the instance's security groups (${found.groups.map((g) => g.id).join(', ')}).`,
        'Pass one of those ids to --group.',
      );
    }
    return wanted;
  }
  const withSsh = found.groups.find((g) => found.rules.some((r) => r.groupId === g.id && coversPort(r, port)));
  if (withSsh) return withSsh.id;
  return found.groups.length === 1 ? found.groups[0]!.id : null;
}

/**
 * The one address a rule may open to, as a CIDR: "1.2.3.4" → 1.2.3.4/32, "2001:db8::1" → /128.
 * Anything wider (0.0.0.0/0, ::/0, a /24) is refused: this command opens SSH to one address only.
 */
export function singleAddressCidr(input: string, flag = '--ip'): string {
  const [addr, bits, extra] = input.trim().split('/');
  const family = isIP(addr ?? '');
  if (!family || extra !== undefined)
    throw new AppError(
      'INVALID_INPUT',
      `${flag} ${JSON.stringify(input)} is not an IPv4 or IPv6 address.`,
      `Pass one address, e.g. ${flag} 203.0.113.7 or ${flag} 2001:db8::7.`,
    );
  const full = family === 4 ? 32 : 128;
  if (bits !== undefined && Number(bits) !== full) {
    throw new AppError(
      'INVALID_INPUT',
      `${flag} ${input} opens SSH to ${Number(bits) === 0 ? 'the whole internet' : 'a whole network'}; TagSSH adds rules for one address only (/${full}).`,
      // The network's own base address (0.0.0.0, ::, 203.0.113.0) is never the one to suggest.
      `Give one address, e.g. your own public address, as ${flag} ${family === 4 ? '203.0.113.7' : '2001:db8::7'} (the same as /${full}); open wider ranges in the EC2 console if you really mean to.`,
    );
  }
  return hostCidr(addr!);
}

/** `tagssh <user> <date>`, in the characters EC2 accepts in a rule description. */
export function ruleDescription(now = new Date(), user = safeUserName()): string {
  return `${TAGSSH_DESCRIPTION_PREFIX}${user} ${now.toISOString().slice(0, 10)}`;
}

function safeUserName(): string {
  let name = 'user';
  try {
    name = userInfo().username;
  } catch {
    /* no passwd entry: keep the placeholder */
  }
  return name.replace(/[^A-Za-z0-9._\-:/()#,@[\]+=&;{}!$*]/g, '_').slice(0, 64) || 'user';
}

type Ec2Sdk = typeof Ec2SdkModule;

async function client(scope: AwsScope, region: string): Promise<{ ec2: EC2Client; sdk: Ec2Sdk; call: <T>(run: () => Promise<T>) => Promise<T> }> {
  const sdk = cjsExports(await import('@aws-sdk/client-ec2'));
  const cfg = await sdkClientConfig(scope, region, 'ec2');
  const ec2 = new sdk.EC2Client(cfg);
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw sdkAppError(e, 'EC2', region, cfg.endpoint ?? `ec2.${region}`, scope.profile);
    }
  };
  return { ec2, sdk, call };
}

/** The instance's security groups and their ingress rules. */
export async function groupsOf(instance: InstanceRef, scope: AwsScope): Promise<InstanceGroups> {
  const { ec2, sdk, call } = await client(scope, instance.region);
  try {
    const res = await call(() => ec2.send(new sdk.DescribeInstancesCommand({ InstanceIds: [instance.id] })));
    const sdkInstance = res.Reservations?.[0]?.Instances?.[0];
    const ids = [...new Set((sdkInstance?.SecurityGroups ?? []).map((g) => g.GroupId).filter((g): g is string => !!g))];
    if (ids.length === 0) return { instance, groups: [], rules: [] };
    const sgs = await call(() => ec2.send(new sdk.DescribeSecurityGroupsCommand({ GroupIds: ids })));
    const byId = new Map((sgs.SecurityGroups ?? []).map((g) => [g.GroupId, g]));
    const ordered = ids.map((id) => byId.get(id)).filter((g): g is SecurityGroup => !!g);
    return { instance, groups: ordered.map((g) => ({ id: g.GroupId!, name: g.GroupName ?? '', vpcId: g.VpcId ?? null })), rules: rulesOf(ordered) };
  } finally {
    ec2.destroy();
  }
}

function diagnosisOf(found: InstanceGroups, ip: string, port: number): SgDiagnosis {
  const { verdict, rule } = verdictFor(found.rules, ip, port);
  return {
    verdict,
    instanceId: found.instance.id,
    name: found.instance.name,
    region: found.instance.region,
    ip,
    port,
    groupIds: found.groups.map((g) => g.id),
    suggestedGroupId: groupForNewRule(found, port),
    matchedGroupId: rule?.groupId ?? null,
  };
}

/** One line for the terminal: what was found and what to do about it (CLI words). */
export function diagnosisLine(d: SgDiagnosis, ref: string): string {
  const groups = d.groupIds.join(', ') || 'none';
  if (d.verdict === 'blocked')
    return `Your public IP ${d.ip} is not allowed on port ${d.port} by ${displayName(ref)}'s security groups (${groups}) — your IP has probably changed. Run \`tagssh sg allow-my-ip ${shellWord(ref)}\` to add ${hostCidr(d.ip)} (it asks first).`;
  if (d.verdict === 'allowed')
    return `Security group ${d.matchedGroupId} allows ${d.ip} on port ${d.port}, so the block is elsewhere: a network ACL, the route table, or a firewall on the instance.`;
  return `Security group ${d.matchedGroupId} allows port ${d.port} from a prefix list or another security group: TagSSH can't tell whether ${d.ip} is in it (\`tagssh sg list ${shellWord(ref)}\` shows the rules).`;
}

function shellWord(s: string): string {
  return /^[A-Za-z0-9._@:/=+-]+$/.test(s) ? s : shQuote(s);
}

interface AllowResult {
  groupId: string;
  cidr: string;
  port: number;
  description: string;
  /** false: a rule already covered the address; nothing was added. */
  added: boolean;
}

/** Adds an ingress rule for exactly one address on `port` to `groupId`. */
export async function allowAddress(
  instance: InstanceRef,
  groupId: string,
  cidr: string,
  port: number,
  scope: AwsScope,
  description = ruleDescription(),
): Promise<AllowResult> {
  const { ec2, sdk, call } = await client(scope, instance.region);
  try {
    const v6 = cidr.includes(':');
    const range = v6 ? { Ipv6Ranges: [{ CidrIpv6: cidr, Description: description }] } : { IpRanges: [{ CidrIp: cidr, Description: description }] };
    await call(() =>
      ec2.send(
        new sdk.AuthorizeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: [{ IpProtocol: 'tcp', FromPort: port, ToPort: port, ...range }] }),
      ),
    );
    return { groupId, cidr, port, description, added: true };
  } finally {
    ec2.destroy();
  }
}

/** Removes the given rules (each exactly as DescribeSecurityGroups reported it). */
export async function revokeRules(instance: InstanceRef, rules: SgRule[], scope: AwsScope): Promise<void> {
  if (rules.length === 0) return;
  const { ec2, sdk, call } = await client(scope, instance.region);
  try {
    for (const r of rules) {
      if (r.source.kind !== 'cidr') continue;
      const desc = r.description !== null ? { Description: r.description } : {};
      const range = r.source.cidr.includes(':') ? { Ipv6Ranges: [{ CidrIpv6: r.source.cidr, ...desc }] } : { IpRanges: [{ CidrIp: r.source.cidr, ...desc }] };
      const ports = r.fromPort !== null ? { FromPort: r.fromPort, ToPort: r.toPort ?? r.fromPort } : {};
      await call(() =>
        ec2.send(new sdk.RevokeSecurityGroupIngressCommand({ GroupId: r.groupId, IpPermissions: [{ IpProtocol: r.protocol, ...ports, ...range }] })),
      );
    }
  } finally {
    ec2.destroy();
  }
}

/** A rule for a table or a message: "sg-1 tcp 22 from 203.0.113.7/32 (tagssh alice 2026-12-01)". */
export function ruleText(r: SgRule): string {
  const ports =
    r.protocol === '-1' ? 'all traffic' : `${r.protocol === '6' ? 'tcp' : r.protocol} ${r.fromPort === r.toPort ? r.fromPort : `${r.fromPort}-${r.toPort}`}`;
  const from = r.source.kind === 'cidr' ? r.source.cidr : r.source.kind === 'prefix-list' ? `prefix list ${r.source.id}` : `group ${r.source.id}`;
  return `${r.groupId} ${ports} from ${from}${r.description ? ` (${r.description})` : ''}`;
}

const PRIVATE_NETWORKS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7'];

/**
 * A connect that timed out, explained: when the target is an instance reached directly (no jump
 * host, whose own rules would matter instead), the error's hint becomes the security-group
 * finding and its details carry it for the app. Any failure of the check leaves the error as it was.
 */
export async function explainTimeout(
  err: unknown,
  target: { instanceId?: string; region?: string; label: string; host: string; port: number; jump?: unknown[] },
  scope: AwsScope,
  lookupUrl: string,
): Promise<unknown> {
  if (!(err instanceof AppError) || err.code !== 'TIMEOUT' || !target.instanceId || !target.region || target.jump?.length) return err;
  // To a private address (VPN, Direct Connect) the packets don't come from the public IP a lookup reports.
  if (PRIVATE_NETWORKS.some((cidr) => cidrContains(cidr, target.host))) return err;
  try {
    const { lookUpMyIp } = await import('./myIp.js');
    const [ip, found] = await Promise.all([lookUpMyIp(lookupUrl), groupsOf({ id: target.instanceId, region: target.region, name: target.label }, scope)]);
    const d = diagnosisOf(found, ip, target.port);
    return new AppError('TIMEOUT', err.message, diagnosisLine(d, target.label), { securityGroups: d });
  } catch {
    return err;
  }
}
