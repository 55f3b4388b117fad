import * as z from 'zod';
import { INSTANCE_ID, REGION_NAME } from '../vocab.js';
import { call } from '../rpc.js';

// The security-group part of the app contract (spread into src/common/contract.ts): after an SSH
// connect timed out and the diagnosis (TIMEOUT details, see diagnosis.ts) found the user's IP not
// allowed, the app's "Allow my IP" adds exactly that one address on the SSH port. The backend
// checks it all again: one address only (/32, /128), a group the instance really has.

const AllowMyIpInputSchema = z.object({
  instanceId: z.string().regex(INSTANCE_ID),
  region: z.string().regex(REGION_NAME),
  ip: z.string().min(2).max(64),
  port: z.number().int().min(1).max(65535),
  groupId: z.string().regex(/^sg-[0-9a-f]{1,32}$/),
});

const AllowMyIpResultSchema = z.object({
  groupId: z.string(),
  cidr: z.string(),
  port: z.number().int(),
  description: z.string(),
  /** false: a rule already let the address in; nothing was added. */
  added: z.boolean(),
});

export const securityGroupCalls = {
  'securityGroups.allowMyIp': call(AllowMyIpInputSchema, AllowMyIpResultSchema),
};
