// How the first hop of a connection reaches an instance: straight to its address ('direct'),
// through a bastion ('jump'), through the EC2 Instance Connect Endpoint of its VPC ('eice'), or
// through an SSM Session Manager session ('ssm'). 'auto' picks per instance
// (src/node/transport/choose.ts). No zod here: the CLI's connect path must load fast.

export const TRANSPORTS = ['direct', 'jump', 'eice', 'ssm'] as const;
export type TransportName = (typeof TRANSPORTS)[number];
export const TRANSPORT_CHOICES = ['auto', ...TRANSPORTS] as const;
export type TransportChoice = (typeof TRANSPORT_CHOICES)[number];

export function isTransportChoice(v: unknown): v is TransportChoice {
  return typeof v === 'string' && (TRANSPORT_CHOICES as readonly string[]).includes(v);
}
