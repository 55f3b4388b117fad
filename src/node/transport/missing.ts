import type { Instance } from '../../common/model/instance.js';
import { AppError } from '../../common/errors.js';
import { label } from '../aws/instances/lifecycle.js';

// What a transport needs and the instance lacks. Kept apart from the transports themselves: the
// choice (choose.ts) runs on every connect, and eice.ts brings a WebSocket client (and with it
// node:https and node:tls) that a direct connection never uses.

export function noEndpointError(instance: Pick<Instance, 'id' | 'name' | 'vpcId' | 'region'>): AppError {
  return new AppError(
    'NOT_FOUND',
    `No EC2 Instance Connect Endpoint in ${instance.vpcId ?? 'the VPC'} (${instance.region}) of ${label(instance)}.`,
    'Create one in that VPC (VPC console → Endpoints → EC2 Instance Connect Endpoint), or choose another transport.',
    { missing: 'eice-endpoint', vpcId: instance.vpcId },
  );
}

export function notManagedError(instance: Instance): AppError {
  return new AppError(
    'NOT_FOUND',
    `${label(instance)} is not an SSM managed node (Systems Manager does not list it online in ${instance.region}).`,
    'Install and start the SSM Agent, give the instance a role with AmazonSSMManagedInstanceCore, or choose another transport.',
    { missing: 'ssm-managed-node' },
  );
}
