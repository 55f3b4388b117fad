import { createHash, randomUUID } from 'node:crypto';

// The Session Manager data channel's binary frame (one per WebSocket message), laid out as the
// session-manager-plugin and the SSM agent lay it out, big-endian throughout:
//   0 header length (u32)          4 message type (32 bytes, UTF-8, padded)
//  36 schema version (u32)        40 created date (u64, epoch ms)
//  48 sequence number (i64)       56 flags (u64: bit 0 SYN, bit 1 FIN)
//  64 message id (UUID, low 8 bytes first, then high 8)
//  80 SHA-256 of the payload      112 payload type (u32)
// HL payload length (u32)       HL+4 payload
// Both open-source ends write HL = 116. The service's own frames (channel_closed among them) may
// carry HL = 112: no payload type, the type NUL-padded. The plugin reads every field at its fixed
// offset, takes the payload from HL+4 and trims NUL and space from both ends of the type
// (aws/session-manager-plugin src/message/messageparser.go at 61cf1288); so does this decoder, and
// it reads the payload type only when the header has room for it. A frame that does not parse, or
// whose digest does not match its payload, is refused with a MalformedFrameError (the channel
// drops it; the peer resends). start/pause_publication and empty payloads are not digest-checked,
// as the plugin's Validate() skips them.

export const MESSAGE_TYPES = {
  input: 'input_stream_data',
  output: 'output_stream_data',
  ack: 'acknowledge',
  channelClosed: 'channel_closed',
  startPublication: 'start_publication',
  pausePublication: 'pause_publication',
} as const;

export const PAYLOAD_TYPES = {
  output: 1,
  error: 2,
  size: 3,
  parameter: 4,
  handshakeRequest: 5,
  handshakeResponse: 6,
  handshakeComplete: 7,
  encChallengeRequest: 8,
  encChallengeResponse: 9,
  flag: 10,
  stdErr: 11,
  exitCode: 12,
} as const;

/** Payload of a `flag` message (u32, big-endian). */
export const FLAGS = { disconnectToPort: 1, terminateSession: 2, connectToPortError: 3 } as const;

/** The header length both open-source ends write. */
const HEADER_LENGTH = 116;
/** The shortest header a peer may send: everything up to the digest, no payload type. */
const SHORT_HEADER_LENGTH = 112;
const TYPE_LEN = 32;
/** Types the plugin accepts without checking the digest (messageparser.go, Validate). */
const UNCHECKED_TYPES: ReadonlySet<string> = new Set(['start_publication', 'pause_publication']);

export interface AgentMessage {
  messageType: string;
  schemaVersion: number;
  createdDate: number;
  sequenceNumber: number;
  flags: number;
  messageId: string;
  /** 0 when the header has no payload type (HL 112). */
  payloadType: number;
  payload: Buffer;
  /** As received; encodeMessage writes 116 unless this says 112 (the service's short layout). */
  headerLength?: number;
}

export class MalformedFrameError extends Error {
  constructor(why: string) {
    super(`Malformed Session Manager frame: ${why}`);
    this.name = 'MalformedFrameError';
  }
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidBytes(id: string): Buffer {
  if (!UUID_RE.test(id)) throw new TypeError(`not a UUID: ${id}`);
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

function uuidString(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function payloadDigest(payload: Buffer): Buffer {
  return createHash('sha256').update(payload).digest();
}

export function newMessage(fields: Partial<AgentMessage> & Pick<AgentMessage, 'messageType'>): AgentMessage {
  return {
    schemaVersion: 1,
    createdDate: Date.now(),
    sequenceNumber: 0,
    flags: 0,
    messageId: randomUUID(),
    payloadType: 0,
    payload: Buffer.alloc(0),
    ...fields,
  };
}

export function encodeMessage(m: AgentMessage): Buffer {
  const typeBytes = Buffer.from(m.messageType, 'utf8');
  if (typeBytes.length === 0 || typeBytes.length > TYPE_LEN) throw new TypeError(`message type must be 1–${TYPE_LEN} bytes: ${m.messageType}`);
  const short = m.headerLength === SHORT_HEADER_LENGTH;
  const headerLength = short ? SHORT_HEADER_LENGTH : HEADER_LENGTH;
  const out = Buffer.alloc(headerLength + 4 + m.payload.length);
  out.writeUInt32BE(headerLength, 0);
  // The open-source ends pad the type with spaces; the service's short frames with NULs.
  out.fill(short ? 0 : 0x20, 4, 4 + TYPE_LEN);
  typeBytes.copy(out, 4);
  out.writeUInt32BE(m.schemaVersion, 36);
  out.writeBigUInt64BE(BigInt(m.createdDate), 40);
  out.writeBigInt64BE(BigInt(m.sequenceNumber), 48);
  out.writeBigUInt64BE(BigInt(m.flags), 56);
  const id = uuidBytes(m.messageId);
  id.copy(out, 64, 8, 16);
  id.copy(out, 72, 0, 8);
  payloadDigest(m.payload).copy(out, 80);
  if (!short) out.writeUInt32BE(m.payloadType, 112);
  out.writeUInt32BE(m.payload.length, headerLength);
  m.payload.copy(out, headerLength + 4);
  return out;
}

/** The type field without the NUL and space padding either end may use, at both ends (as the plugin trims it). */
function messageTypeOf(field: Buffer): string {
  return field.toString('utf8').replace(/^[\0\s]+|[\0\s]+$/g, '');
}

export function decodeMessage(frame: Buffer): AgentMessage {
  const shortest = SHORT_HEADER_LENGTH + 4;
  if (frame.length < shortest) throw new MalformedFrameError(`${frame.length} bytes, shorter than the ${shortest}-byte header`);
  const headerLength = frame.readUInt32BE(0);
  if (headerLength < SHORT_HEADER_LENGTH || headerLength > HEADER_LENGTH)
    throw new MalformedFrameError(`header length ${headerLength}, expected ${SHORT_HEADER_LENGTH}–${HEADER_LENGTH}`);
  if (frame.length < headerLength + 4) throw new MalformedFrameError(`${frame.length} bytes, shorter than its ${headerLength + 4}-byte header`);
  const messageType = messageTypeOf(frame.subarray(4, 4 + TYPE_LEN));
  if (!messageType) throw new MalformedFrameError('empty message type');
  const payloadLength = frame.readUInt32BE(headerLength);
  const payloadOffset = headerLength + 4;
  if (payloadLength !== frame.length - payloadOffset)
    throw new MalformedFrameError(`payload length ${payloadLength} but ${frame.length - payloadOffset} bytes follow the header`);
  const payload = Buffer.from(frame.subarray(payloadOffset));
  if (payload.length > 0 && !UNCHECKED_TYPES.has(messageType) && !payloadDigest(payload).equals(frame.subarray(80, 112)))
    throw new MalformedFrameError('payload digest does not match the payload');
  const sequence = frame.readBigInt64BE(48);
  if (sequence < 0n || sequence > BigInt(Number.MAX_SAFE_INTEGER)) throw new MalformedFrameError(`sequence number ${sequence} out of range`);
  const id = Buffer.concat([frame.subarray(72, 80), frame.subarray(64, 72)]);
  const m: AgentMessage = {
    messageType,
    schemaVersion: frame.readUInt32BE(36),
    createdDate: Number(frame.readBigUInt64BE(40)),
    sequenceNumber: Number(sequence),
    flags: Number(frame.readBigUInt64BE(56) & 0xffffn),
    messageId: uuidString(id),
    payloadType: headerLength >= HEADER_LENGTH ? frame.readUInt32BE(112) : 0,
    payload,
  };
  if (headerLength !== HEADER_LENGTH) m.headerLength = headerLength;
  return m;
}

/** The JSON body of an `acknowledge` message. */
interface AckContent {
  AcknowledgedMessageType: string;
  AcknowledgedMessageId: string;
  AcknowledgedMessageSequenceNumber: number;
  IsSequentialMessage: boolean;
}

export function ackFor(m: AgentMessage): AgentMessage {
  const content: AckContent = {
    AcknowledgedMessageType: m.messageType,
    AcknowledgedMessageId: m.messageId,
    AcknowledgedMessageSequenceNumber: m.sequenceNumber,
    IsSequentialMessage: true,
  };
  // As the plugin sends them: sequence 0, SYN|FIN, no payload type.
  return newMessage({ messageType: MESSAGE_TYPES.ack, flags: 3, payload: Buffer.from(JSON.stringify(content)) });
}

export function parseAck(m: AgentMessage): AckContent {
  let v: unknown;
  try {
    v = JSON.parse(m.payload.toString('utf8'));
  } catch {
    throw new MalformedFrameError('acknowledge payload is not JSON');
  }
  const a = v as Partial<AckContent> | null;
  if (!a || typeof a.AcknowledgedMessageSequenceNumber !== 'number' || typeof a.AcknowledgedMessageType !== 'string')
    throw new MalformedFrameError('acknowledge payload lacks its sequence number or type');
  return a as AckContent;
}

export function flagPayload(flag: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(flag, 0);
  return b;
}
