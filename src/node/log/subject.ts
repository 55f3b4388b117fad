import { hostname, userInfo } from 'node:os';
import type { Instance } from '../../common/model/instance.js';
import type { ConnectTarget } from '../ssh/types.js';
import type { LogSubject } from './sessionLog.js';

// What a session log's header says about its session, the same for the app and the CLI: the
// instance (id, Name, type, AMI, region, AZ), how it was reached (address, login user, transport)
// and who on this machine ran it (the local account and host name), plus the command of a
// `tagssh ssh NAME -- COMMAND` run.

/** The local account and machine, as `user@host`. */
export function localUser(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? process.env.USERNAME ?? '?';
  }
  return `${user}@${hostname()}`;
}

export function logSubjectOf(target: ConnectTarget, inst?: Pick<Instance, 'name' | 'type' | 'imageId' | 'region' | 'az'>, command?: string): LogSubject {
  return {
    instanceId: target.instanceId ?? null,
    name: inst?.name ?? target.label,
    type: inst?.type ?? null,
    imageId: inst?.imageId ?? null,
    region: target.region ?? inst?.region ?? null,
    az: inst?.az ?? null,
    address: `${target.host}:${target.port}`,
    user: target.user,
    transport: target.transport?.name ?? (target.jump?.length ? 'jump' : 'direct'),
    localUser: localUser(),
    ...(command !== undefined ? { command } : {}),
  };
}
