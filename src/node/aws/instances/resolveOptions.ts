import type { Instance } from '../../../common/model/instance.js';
import type { AwsScope } from '../config/scope.js';
import type { OnProgress } from '../../../common/progress.js';

// How a Name is resolved to an instance: shared by the resolver (resolve.ts) and the start/stop
// waits it uses (lifecycle.ts), which both read it.

export interface ResolveOptions extends AwsScope {
  /** Use the private IP (VPN, or when a jump host carries the connection). */
  private?: boolean;
  /**
   * Decides `private` per instance once it is found, for callers whose choice depends on the
   * instance itself (a jump host named by its tagssh:jump tag); overrides `private`.
   */
  privateFor?: (instance: Instance) => boolean;
  /** When only stopped instances match: start one and wait until its port answers. */
  start?: boolean;
  /** Instance id chosen among several matches. */
  pick?: string;
  /** Port that must answer after --start (default: tag tagssh:port, else 22). */
  port?: number;
  onProgress?: OnProgress;
  signal?: AbortSignal;
  /** Give up waiting after --start after this long (default 10 min). */
  timeoutMs?: number;
  /**
   * false when only the address matters (the CLI's plain output): skips DescribeAddresses, so
   * addressKind 'eip' comes from the association's ipOwnerId (exact on AWS). Default true.
   */
  exactAddressKind?: boolean;
  /**
   * After a start: whether the port answers (default: a TCP connect to the address). A tunnel
   * transport (EC2 Instance Connect Endpoint, SSM) asks through the tunnel instead.
   */
  answers?: (instance: Instance, address: string, port: number) => Promise<boolean>;
}
