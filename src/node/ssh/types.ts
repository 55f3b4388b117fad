import type { Duplex } from 'node:stream';
import type { TransportName } from '../../common/model/transport.js';
import type { UserSource } from '../../common/login.js';

// Everything needed to reach one SSH endpoint (target.ts builds it from an instance, its tags and
// the settings; tests and the benchmark runner may build one by hand for a plain host:port).

export interface ConnectTarget {
  host: string;
  port: number;
  user: string;
  /** Which rule chose the user (src/common/login.ts): said by the tab, `-v`, and the error when the login fails. */
  userSource?: UserSource;
  /** EC2 identity: host keys are trusted per instance id (+ region), never per address. */
  instanceId?: string;
  region?: string;
  /** EC2's LaunchTime of the instance: kept with its trusted key, shown when its Name later names another instance. */
  launchTime?: string | null;
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
   * EC2 Instance Connect keys: 'always' logs in with a pushed key first (Settings, tag
   * tagssh:eic=true, --eic); 'ask' pushes nothing and lets a refused login offer one.
   */
  instanceConnect?: { mode: 'ask' | 'always'; az?: string | null };
  /**
   * Never offer this hop the ssh-agent's keys (only its key file): a jump host that a tag names
   * outside EC2 (allowed in Settings) is somebody else's machine as far as the agent is concerned.
   */
  noAgentKeys?: boolean;
  /** Forward the ssh-agent to this hop (OpenSSH's ForwardAgent). */
  agentForward?: boolean;
  /** Environment sent with every session (OpenSSH's SendEnv LANG LC_*); the server's AcceptEnv decides. */
  env?: Record<string, string>;
}

/**
 * A first hop's stream may carry words for the user from the path itself (Session Manager's
 * HandshakeComplete CustomerMessage): shown before the server's banner, escaped as untrusted text.
 */
export interface TransportStream extends Duplex {
  readonly notice?: string;
}

export interface TransportOpener {
  name: TransportName;
  /** Shown to people: "EC2 Instance Connect Endpoint eice-…". */
  label: string;
  open(signal?: AbortSignal): Promise<Duplex>;
}
