import { AppError } from '../../common/errors.js';

// The data channel's handshake, the client's half, answered as the session-manager-plugin answers
// it (src/datachannel/streaming.go handleHandshakeRequest at 61cf1288): the agent's
// HandshakeRequest lists actions; SessionType is accepted for the session types the plugin knows,
// anything else is refused with a reason. The agent cancels the session on any status but
// Success (agent/session/datachannel/datachannel.go handleHandshakeResponse at 1c217c89), so a
// request for KMS encryption, which TagSSH does not implement, ends the session right after the
// answer: the KMS error is raised here, from the request, not from a challenge that never comes.

/** The version TagSSH announces; see CLIENT_VERSION's note in client.ts. */
export const CLIENT_VERSION = '1.2.0.0';

const STATUS = { success: 1, failed: 2, unsupported: 3 } as const;

/** Session types the plugin accepts in a SessionType action (config.go: Standard_Stream, Port, Interactive/NonInteractiveCommands). */
const KNOWN_SESSION_TYPES = new Set(['Standard_Stream', 'Port', 'InteractiveCommands', 'NonInteractiveCommands']);

interface RequestedAction {
  ActionType?: unknown;
  ActionParameters?: unknown;
}

interface ProcessedAction {
  ActionType: unknown;
  ActionStatus: number;
  ActionResult: null;
  Error: string;
}

interface HandshakeAnswer {
  /** The HandshakeResponse payload to send back (JSON). */
  body: Buffer;
  /** The session type the agent announced ('' when none). */
  sessionType: string;
  /** The SessionType action's properties (a port session's {"portNumber": "22"}). */
  properties: Record<string, unknown>;
  agentVersion: string;
  /** The agent asked for KMS encryption: answered as unsupported, and the session cannot go on. */
  kms: boolean;
}

function record(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Reads the agent's HandshakeRequest payload and builds the answer. */
export function answerHandshake(payload: Buffer): HandshakeAnswer {
  let req: { AgentVersion?: unknown; RequestedClientActions?: unknown };
  try {
    req = record(JSON.parse(payload.toString('utf8')));
  } catch {
    throw new AppError('SESSION_CLOSED', 'The Session Manager agent sent a handshake that is not JSON.');
  }
  const processed: ProcessedAction[] = [];
  const errors: string[] = [];
  let sessionType = '';
  let properties: Record<string, unknown> = {};
  let kms = false;
  const actions = Array.isArray(req.RequestedClientActions) ? (req.RequestedClientActions as RequestedAction[]) : [];
  for (const action of actions.map(record) as RequestedAction[]) {
    const params = record(action.ActionParameters);
    let status: number = STATUS.success;
    let error = '';
    if (action.ActionType === 'SessionType') {
      const type = typeof params.SessionType === 'string' ? params.SessionType : '';
      if (KNOWN_SESSION_TYPES.has(type)) {
        sessionType = type;
        properties = record(params.Properties);
      } else {
        status = STATUS.failed;
        error = `Failed to process action SessionType: Unknown session type ${type}`;
      }
    } else {
      // KMSEncryption and anything newer: say so; the agent ends the session.
      kms ||= action.ActionType === 'KMSEncryption';
      status = STATUS.unsupported;
      error = `Unsupported action ${String(action.ActionType)}`;
    }
    processed.push({ ActionType: action.ActionType, ActionStatus: status, ActionResult: null, Error: error });
    if (error) errors.push(error);
  }
  // Field order and nulls as the plugin's json.Marshal writes them.
  const body = { ClientVersion: CLIENT_VERSION, ProcessedClientActions: processed, Errors: errors.length ? errors : null };
  return {
    body: Buffer.from(JSON.stringify(body)),
    sessionType,
    properties,
    agentVersion: typeof req.AgentVersion === 'string' ? req.AgentVersion : '',
    kms,
  };
}

/** The CustomerMessage of a HandshakeComplete payload ('' when none or unreadable). */
export function customerMessageOf(payload: Buffer): string {
  try {
    const v = record(JSON.parse(payload.toString('utf8'))).CustomerMessage;
    return typeof v === 'string' ? v : '';
  } catch {
    return '';
  }
}

export function kmsUnsupportedError(): AppError {
  return new AppError(
    'CONNECT_FAILED',
    'This Session Manager session asks for KMS encryption, which TagSSH does not support.',
    'Turn off KMS encryption in the Session Manager preferences, or use another transport.',
  );
}
