import type { Duplex } from 'node:stream';
import type { TransportName } from '../../common/model/transport.js';

// Everything needed to reach one SSH endpoint (target.ts builds it from an instance, its tags and
// the settings; tests and the benchmark runner may build one by hand for a plain host:port).

export interface ConnectTarget {
  host: string;
  port: number;
  user: string;
  /** EC2 identity: host keys are trusted per instance id (+ region), never per address. */
  instanceId?: string;
  region?: string;
  /** AWS profile the instance was found with (for the console-output host-key check). */
  profile?: string;
  /** Shown to people: the Name tag, else the id, else host:port. */
  label: string;
  /** Key file to use; when absent the defaults apply (KeyName file, settings, ~/.ssh/id_*). */
  identityFile?: string;
  /** EC2 key pair name of the instance (for the default key file). */
  keyName?: string | null;
  /** Bastions, outermost first; each may itself carry a jump chain. */
  jump?: ConnectTarget[];
  /** true = accept a new host key (OpenSSH accept-new); a string = the one fingerprint confirmed. */
  acceptNewHostKey?: boolean | string;
  /**
   * How the first hop's byte stream is opened when it is not plain TCP to host:port (an EC2
   * Instance Connect Endpoint tunnel, an SSM session); see src/node/transport/choose.ts.
   */
  transport?: TransportOpener;
  /**
   * EC2 Instance Connect keys: 'fallback' pushes a fresh key when no key of the user's is
   * accepted; 'always' logs in with a pushed key first (tag tagssh:eic=true, --eic).
   */
  instanceConnect?: { mode: 'fallback' | 'always'; az?: string | null };
}

export interface TransportOpener {
  name: TransportName;
  /** Shown to people: "EC2 Instance Connect Endpoint eice-…". */
  label: string;
  open(signal?: AbortSignal): Promise<Duplex>;
}
