import * as z from 'zod';

// What TagSSH found when an SSH connect timed out: does a security group of the instance let the
// user's current public IP in on the SSH port? Carried as the TIMEOUT error's details, so the CLI
// and the app word the same finding each in their own terms.

const SgVerdictSchema = z.enum([
  /** A rule covers the IP on the port: the block is elsewhere (network ACL, route, host firewall). */
  'allowed',
  /** No rule covers the IP on the port: the IP probably changed. */
  'blocked',
  /** Only prefix lists or other security groups could cover it: TagSSH can't tell. */
  'unknown',
]);
export type SgVerdict = z.infer<typeof SgVerdictSchema>;

const SgDiagnosisSchema = z.object({
  verdict: SgVerdictSchema,
  instanceId: z.string(),
  name: z.string().nullable(),
  region: z.string(),
  ip: z.string(),
  port: z.number().int(),
  /** The instance's security groups. */
  groupIds: z.array(z.string()),
  /** The group a rule for this IP would go to (first with an SSH rule, else the only one); null when the user must choose. */
  suggestedGroupId: z.string().nullable(),
  /** The group whose rule decided the verdict ('allowed' or 'unknown'). */
  matchedGroupId: z.string().nullable(),
});
export type SgDiagnosis = z.infer<typeof SgDiagnosisSchema>;

/** TIMEOUT errors carry `{ securityGroups: SgDiagnosis }` when the diagnosis could be made. */
export const TimeoutDetailsSchema = z.object({ securityGroups: SgDiagnosisSchema });

/** The CIDR a rule for one address takes: /32 for IPv4, /128 for IPv6. */
export function hostCidr(ip: string): string {
  return ip.includes(':') ? `${ip}/128` : `${ip}/32`;
}
