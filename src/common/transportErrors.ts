import * as z from 'zod';

// The details of the errors the private-instance transports raise (src/node/transport,
// src/node/aws/instances/instanceConnect.ts): which piece is missing, or which permission the role lacks.
// Each face words them itself; the app reads them through transportDetailsOf().

const TRANSPORT_MISSING = ['transport', 'eice-endpoint', 'ssm-managed-node', 'jump-host', 'security-group-rule', 'sshd'] as const;

const TransportDetailsSchema = z.union([
  z.object({ missing: z.enum(TRANSPORT_MISSING), vpcId: z.string().nullable().optional() }),
  z.object({ permission: z.enum(['ec2:DescribeInstanceConnectEndpoints', 'ec2-instance-connect:OpenTunnel', 'ec2-instance-connect:SendSSHPublicKey']) }),
]);
type TransportDetails = z.infer<typeof TransportDetailsSchema>;

/** The transport details an error carries, or undefined (never throws). */
export function transportDetailsOf(err: { details?: unknown } | null | undefined): TransportDetails | undefined {
  const r = TransportDetailsSchema.safeParse(err?.details);
  return r.success ? r.data : undefined;
}
