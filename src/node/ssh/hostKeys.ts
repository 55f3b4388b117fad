import type { HostKeyChangedDetails, HostKeyUnknownDetails } from '../../common/errorDetails.js';
import { AppError } from '../../common/errors.js';
import { isTerminalSafe } from '../../common/safeText.js';
import { matchConsole, parseConsoleHostKeys, type ConsoleOutputSource } from './consoleFingerprints.js';
import { hostKeyAlgorithmsFor, keyTypeOf, normaliseFingerprint, sha256Fingerprint } from './fingerprint.js';
import { hostIdOf, type KnownHostEntry, type KnownHostsStore } from './knownHosts.js';

// The host-key decision for one hop. Order of trust:
//   1. a key already trusted for this instance id → accept; any other key → HOST_KEY_CHANGED
//      (the address may now belong to another machine; only `forget-host-key` clears it) — also
//      when another process trusted a different key while this handshake was under way;
//   2. first contact for an instance whose Name is trusted for ANOTHER instance id (the Name tag
//      moved: anyone with ec2:CreateTags can move it, and that instance's console output is its
//      own word) → only the user's confirmation of this exact fingerprint trusts it;
//   3. first contact: the key is listed in the instance's console output → trust it;
//   4. the user confirmed this exact fingerprint → trust it;
//   5. accept-new (OpenSSH semantics) → trust it, unless the console lists OTHER keys;
//   6. otherwise HOST_KEY_UNKNOWN, carrying the fingerprint for the caller to show and confirm.

const CONSOLE_TIMEOUT_MS = 8000;

export interface HostKeySubject {
  host: string;
  port: number;
  label: string;
  instanceId?: string;
  region?: string;
  /** When the instance was launched (EC2's LaunchTime): kept with its key, shown if its Name later moves. */
  launchTime?: string | null;
  /** true = accept a new key (not a changed one); a string = the one fingerprint the user confirmed. */
  acceptNewHostKey?: boolean | string;
}

export interface HostKeyPolicy {
  store: KnownHostsStore;
  /** Console-output source for first contact; null/undefined = no console check. */
  consoleOutput?: ConsoleOutputSource | null;
}

export interface HostKeyDecision {
  ok: boolean;
  error?: AppError;
}

/** Host-key algorithms to offer first so that the server presents a key type we already trust. */
export function preferredHostKeyAlgorithms(subject: HostKeySubject, policy: HostKeyPolicy): string[] | undefined {
  const entry = policy.store.get(hostIdOf(subject));
  if (!entry) return undefined;
  return [...new Set(entry.keys.flatMap((k) => hostKeyAlgorithmsFor(k.keyType)))];
}

/** The name users type to forget a key: the label (Name tag) when it has one, else the id. */
function forgetRef(subject: HostKeySubject): string {
  // A Name with control characters would be shown escaped, and the escaped text is not the Name:
  // then the instance id, which always works, is the one to type.
  const label = subject.label && (isTerminalSafe(subject.label) || !subject.instanceId) ? subject.label : undefined;
  const ref = label || subject.instanceId || `${subject.host}:${subject.port}`;
  return /^[A-Za-z0-9._@:/-]+$/.test(ref) ? ref : `'${ref.replace(/'/g, `'\\''`)}'`;
}

function changedError(subject: HostKeySubject, who: string, entry: KnownHostEntry, keyType: string, fingerprint: string): AppError {
  const old = entry.keys.find((k) => k.keyType === keyType) ?? entry.keys[0]!;
  const details: HostKeyChangedDetails = {
    instanceId: subject.instanceId ?? null,
    label: subject.label,
    oldFingerprint: old.fingerprint,
    newFingerprint: fingerprint,
  };
  return new AppError(
    'HOST_KEY_CHANGED',
    `The host key of ${who} at ${subject.host}:${subject.port} has CHANGED: trusted ${old.fingerprint}, now presented ${fingerprint} — possibly another machine now owns this address, or an attack; refusing to connect.`,
    `If the instance was really rebuilt, run \`tagssh forget-host-key ${forgetRef(subject)}\` and connect again to verify the new key.`,
    details,
  );
}

/** Whether the instance's console output lists this key (null: no console output to check against). */
async function consoleMatchOf(subject: HostKeySubject, keyBlob: Buffer, policy: HostKeyPolicy): Promise<boolean | null> {
  if (!subject.instanceId || !subject.region || !policy.consoleOutput) return null;
  try {
    // Bounded: a slow EC2 API must not hold the handshake (the user can still confirm by hand).
    let timer: NodeJS.Timeout | undefined;
    const text = await Promise.race([
      policy.consoleOutput(subject.instanceId, subject.region),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), CONSOLE_TIMEOUT_MS))),
    ]).finally(() => clearTimeout(timer));
    return text === null ? null : matchConsole(parseConsoleHostKeys(text), keyBlob);
  } catch {
    // No permission for GetConsoleOutput, or EC2 unreachable: fall back to asking the user.
    return null;
  }
}

export async function decideHostKey(subject: HostKeySubject, keyBlob: Buffer, policy: HostKeyPolicy): Promise<HostKeyDecision> {
  const hostId = hostIdOf(subject);
  const keyType = keyTypeOf(keyBlob);
  const fingerprint = sha256Fingerprint(keyBlob);
  const b64 = keyBlob.toString('base64');
  const who = subject.instanceId ? `${subject.label} (${subject.instanceId})` : subject.label;
  const entry = policy.store.get(hostId);

  if (entry) {
    if (entry.keys.some((k) => k.publicKey === b64)) {
      policy.store.touch(hostId, `${subject.host}:${subject.port}`);
      return { ok: true };
    }
    return { ok: false, error: changedError(subject, who, entry, keyType, fingerprint) };
  }

  const consoleMatch = await consoleMatchOf(subject, keyBlob, policy);
  const accept = subject.acceptNewHostKey;
  const confirmedThis = typeof accept === 'string' && normaliseFingerprint(accept) === fingerprint;
  const movedFrom = subject.instanceId ? policy.store.trustedForOtherInstance(subject.label, subject.instanceId) : undefined;
  const source = movedFrom
    ? confirmedThis
      ? 'confirmed'
      : null
    : consoleMatch === true
      ? 'console'
      : confirmedThis
        ? 'confirmed'
        : accept === true && consoleMatch === null
          ? 'accept-new'
          : null;
  if (source) {
    // Compare-and-set: another process (a second tab, the CLI beside the app) may have trusted
    // a different key for this machine while this handshake was under way. Then this is a change.
    const stored = policy.store.trust(hostId, {
      label: subject.label,
      instanceId: subject.instanceId ?? null,
      region: subject.region ?? null,
      keys: [{ keyType, fingerprint, publicKey: b64 }],
      source,
      addedAt: new Date().toISOString(),
      lastAddress: `${subject.host}:${subject.port}`,
      ...(subject.launchTime ? { launchTime: subject.launchTime } : {}),
    });
    return stored.ok ? { ok: true } : { ok: false, error: changedError(subject, who, stored.current, keyType, fingerprint) };
  }

  const details: HostKeyUnknownDetails = { instanceId: subject.instanceId ?? null, label: subject.label, fingerprint, keyType, consoleMatch };
  let message: string;
  let hint: string | undefined;
  if (movedFrom?.instanceId) {
    details.nameMoved = {
      previousInstanceId: movedFrom.instanceId,
      previousLaunchTime: movedFrom.launchTime ?? null,
      previousTrustedAt: movedFrom.addedAt || null,
      launchTime: subject.launchTime ?? null,
    };
    const launched = (t: string | null | undefined) => (t ? `launched ${t}` : 'launch time not recorded');
    message =
      `The Name ${subject.label} now belongs to another instance: trusted until now for ${movedFrom.instanceId} (${launched(movedFrom.launchTime)}), ` +
      `it now names ${subject.instanceId} (${launched(subject.launchTime)}), which presents ${keyType} key ${fingerprint}` +
      `${consoleMatch === true ? ' (its own console output lists this key, but that instance vouches for itself)' : consoleMatch === false ? ', which does NOT match the fingerprints in its console output' : ''}; refusing to trust it without you.`;
  } else if (consoleMatch === false) {
    message = `The ${keyType} host key of ${who} (${fingerprint}) does NOT match the fingerprints in the instance's console output — the address may belong to another machine; refusing to connect.`;
  } else if (typeof accept === 'string') {
    message = `${who} presented host key ${fingerprint}, not the fingerprint you confirmed (${normaliseFingerprint(accept)}); refusing to connect.`;
    hint = 'The key changed since you looked at it: check the instance before confirming again.';
  } else {
    message = `First connection to ${who}: its ${keyType} host key ${fingerprint} is not yet trusted and the console output has no fingerprints to check it against.`;
  }
  return { ok: false, error: new AppError('HOST_KEY_UNKNOWN', message, hint, details) };
}
