import { createHash, randomUUID } from 'node:crypto';

// The lab's own Session Manager frame codec, written from the published layout (the comment
// table in aws/session-manager-plugin src/message/clientmessage.go and aws/amazon-ssm-agent
// agent/session/contracts/agentmessage.go) and never from TagSSH's src/: a misreading in the
// product must not pass because the lab shares it.
//
//   field           offset  size  notes
//   HeaderLength         0     4  116 from both open-source ends; the service's channel_closed: 112
//   MessageType          4    32  UTF-8, space-padded (116) or NUL-padded (112)
//   SchemaVersion       36     4
//   CreatedDate         40     8  epoch milliseconds
//   SequenceNumber      48     8  signed
//   Flags               56     8  bit 0 SYN, bit 1 FIN
//   MessageId           64    16  UUID bytes 8..15, then bytes 0..7
//   PayloadDigest       80    32  SHA-256 of the payload
//   PayloadType        112     4  absent when HeaderLength is 112
//   PayloadLength       HL     4
//   Payload           HL+4     …

export interface WireFrame {
  type: string;
  schema: number;
  created: number;
  seq: number;
  flags: number;
  id: string;
  payloadType: number;
  payload: Buffer;
  headerLength: 112 | 116;
  /** Whether the digest matched the payload (the agent itself never checks it). */
  digestOk: boolean;
}

export interface FrameInput {
  type: string;
  seq?: number;
  flags?: number;
  id?: string;
  created?: number;
  payloadType?: number;
  payload?: Buffer;
  /** 112: the short, NUL-padded layout the service uses for channel_closed. */
  headerLength?: 112 | 116;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();

function idToWire(id: string): Buffer {
  const hex = id.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`lab: not a UUID: ${id}`);
  return Buffer.from(hex.slice(16) + hex.slice(0, 16), 'hex');
}

function idFromWire(b: Buffer): string {
  const hex = b.subarray(8, 16).toString('hex') + b.subarray(0, 8).toString('hex');
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}

export function writeFrame(f: FrameInput): Buffer {
  const hl = f.headerLength ?? 116;
  const payload = f.payload ?? Buffer.alloc(0);
  const head = Buffer.alloc(hl + 4);
  const view = new DataView(head.buffer, head.byteOffset, head.length);
  view.setUint32(0, hl);
  head.fill(hl === 112 ? 0 : 0x20, 4, 36);
  head.write(f.type, 4, 32, 'utf8');
  view.setUint32(36, 1);
  view.setBigUint64(40, BigInt(f.created ?? Date.now()));
  view.setBigInt64(48, BigInt(f.seq ?? 0));
  view.setBigUint64(56, BigInt(f.flags ?? 0));
  idToWire(f.id ?? randomUUID()).copy(head, 64);
  sha256(payload).copy(head, 80);
  if (hl === 116) view.setUint32(112, f.payloadType ?? 0);
  view.setUint32(hl, payload.length);
  return Buffer.concat([head, payload]);
}

/** Reads a frame as the agent reads one (agentmessage.go Deserialize + Validate); null when the agent would reject it. */
export function readFrame(raw: Buffer): WireFrame | null {
  if (raw.length < 116) return null;
  const view = new DataView(raw.buffer, raw.byteOffset, raw.length);
  const hl = view.getUint32(0);
  if (hl !== 112 && hl !== 116) return null;
  if (raw.length < hl + 4) return null;
  const type = raw
    .subarray(4, 36)
    .toString('utf8')
    .replace(/^[\s\0]+|[\s\0]+$/g, '');
  const created = Number(view.getBigUint64(40));
  if (!type || created === 0) return null;
  const payload = Buffer.from(raw.subarray(hl + 4));
  return {
    type,
    schema: view.getUint32(36),
    created,
    seq: Number(view.getBigInt64(48)),
    flags: Number(view.getBigUint64(56)),
    id: idFromWire(raw.subarray(64, 80)),
    payloadType: hl === 116 ? view.getUint32(112) : 0,
    payload,
    headerLength: hl,
    digestOk: sha256(payload).equals(raw.subarray(80, 112)),
  };
}

/** The payload types both ends number the same way (clientmessage.go, agent contracts). */
export const PT = { output: 1, error: 2, size: 3, handshakeRequest: 5, handshakeResponse: 6, handshakeComplete: 7, flag: 10, stdErr: 11 } as const;
export const FLAG = { disconnectToPort: 1, terminateSession: 2, connectToPortError: 3 } as const;
