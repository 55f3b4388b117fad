import { ackFor, decodeMessage, encodeMessage, MalformedFrameError, MESSAGE_TYPES, newMessage, parseAck, type AgentMessage } from './message.js';

// Reliable, in-order delivery over the data channel, as both ends of Session Manager do it:
// every stream message carries the sender's next sequence number and is kept until the peer
// acknowledges it (resent after a retransmission timeout estimated from the round trip, the
// way TCP does); every stream message received is acknowledged, delivered in sequence order,
// early ones held back until the gap is filled, duplicates dropped. The client sends
// input_stream_data and receives output_stream_data; the agent (the test lab) the reverse.

export type Role = 'client' | 'agent';

export interface FrameLink {
  send(frame: Buffer): void;
}

export interface ChannelOptions {
  /** Unacknowledged messages allowed in flight before send() waits. */
  window?: number;
  rtoMinMs?: number;
  rtoMaxMs?: number;
  /** A message unacknowledged this long ends the channel. */
  giveUpMs?: number;
}

interface Outstanding {
  message: AgentMessage;
  frame: Buffer;
  firstSentAt: number;
  sentAt: number;
  resent: boolean;
}

const HELD_BACK_LIMIT = 10_000;

export class SequencedChannel {
  private readonly sendType: string;
  private readonly receiveType: string;
  private nextSeq = 0;
  private expectedSeq = 0;
  private readonly outstanding = new Map<number, Outstanding>();
  private readonly heldBack = new Map<number, AgentMessage>();
  private waiters: Array<() => void> = [];
  private paused = false;
  private closed = false;
  private srtt: number | undefined;
  private rttvar = 0;
  private rto: number;
  private readonly timer: NodeJS.Timeout;
  private readonly window: number;
  private readonly rtoMin: number;
  private readonly rtoMax: number;
  private readonly giveUp: number;
  /** Messages retransmitted so far (the lab's loss tests read it). */
  retransmissions = 0;

  /** In-order stream messages from the peer. */
  onStream: (m: AgentMessage) => void = () => {};
  /** channel_closed and anything else that is not stream data, an ack or flow control. */
  onControl: (m: AgentMessage) => void = () => {};
  onFailure: (e: Error) => void = () => {};

  constructor(
    private readonly link: FrameLink,
    role: Role,
    opts: ChannelOptions = {},
  ) {
    this.sendType = role === 'client' ? MESSAGE_TYPES.input : MESSAGE_TYPES.output;
    this.receiveType = role === 'client' ? MESSAGE_TYPES.output : MESSAGE_TYPES.input;
    this.window = opts.window ?? 512;
    this.rtoMin = opts.rtoMinMs ?? 100;
    this.rtoMax = opts.rtoMaxMs ?? 1000;
    this.giveUp = opts.giveUpMs ?? 30_000;
    this.rto = Math.min(this.rtoMax, Math.max(this.rtoMin, 200));
    this.timer = setInterval(() => this.retransmit(), Math.max(20, Math.floor(this.rtoMin / 2)));
    this.timer.unref();
  }

  /** Bytes from the peer's WebSocket. Malformed frames end the channel through onFailure. */
  receive(frame: Buffer): void {
    if (this.closed) return;
    let m: AgentMessage;
    try {
      m = decodeMessage(frame);
      if (m.messageType === MESSAGE_TYPES.ack) return this.acknowledged(m);
    } catch (e) {
      return this.fail(e instanceof MalformedFrameError ? e : new MalformedFrameError(String(e)));
    }
    if (m.messageType === this.receiveType) return this.arrived(m);
    if (m.messageType === MESSAGE_TYPES.pausePublication) {
      this.paused = true;
      return;
    }
    if (m.messageType === MESSAGE_TYPES.startPublication) {
      this.paused = false;
      this.wake();
      return;
    }
    this.onControl(m);
  }

  /** Queues one stream message; resolves once it is in flight (waits while the window is full or the peer paused publication). */
  async send(payloadType: number, payload: Buffer, flags = 0): Promise<void> {
    while (!this.closed && (this.paused || this.outstanding.size >= this.window)) await new Promise<void>((r) => this.waiters.push(r));
    if (this.closed) throw new Error('The Session Manager channel is closed.');
    const seq = this.nextSeq++;
    // Flags stay 0 on stream data, as the session-manager-plugin sends it.
    const message = newMessage({ messageType: this.sendType, sequenceNumber: seq, payloadType, payload, flags });
    const frame = encodeMessage(message);
    const now = Date.now();
    this.outstanding.set(seq, { message, frame, firstSentAt: now, sentAt: now, resent: false });
    this.link.send(frame);
  }

  /** Sends a non-stream message (channel_closed, publication control) as is. */
  sendRaw(m: AgentMessage): void {
    if (!this.closed) this.link.send(encodeMessage(m));
  }

  get inFlight(): number {
    return this.outstanding.size;
  }

  /** Resolves when every message sent so far has been acknowledged (or the channel closed). */
  async drained(): Promise<void> {
    while (!this.closed && this.outstanding.size > 0) await new Promise<void>((r) => this.waiters.push(r));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.wake();
  }

  private fail(e: Error): void {
    if (this.closed) return;
    this.close();
    this.onFailure(e);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }

  private acknowledged(m: AgentMessage): void {
    const ack = parseAck(m);
    if (ack.AcknowledgedMessageType !== this.sendType) return;
    const o = this.outstanding.get(ack.AcknowledgedMessageSequenceNumber);
    if (!o) return;
    this.outstanding.delete(ack.AcknowledgedMessageSequenceNumber);
    // Karn's rule: a retransmitted message's ack says nothing about the round trip.
    if (!o.resent) this.sample(Date.now() - o.sentAt);
    this.wake();
  }

  private sample(rtt: number): void {
    if (this.srtt === undefined) {
      this.srtt = rtt;
      this.rttvar = rtt / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - rtt);
      this.srtt = 0.875 * this.srtt + 0.125 * rtt;
    }
    this.rto = Math.min(this.rtoMax, Math.max(this.rtoMin, this.srtt + 4 * this.rttvar));
  }

  private arrived(m: AgentMessage): void {
    if (m.sequenceNumber < this.expectedSeq) {
      // Our ack was lost and the peer sent it again: acknowledge again, deliver nothing.
      this.link.send(encodeMessage(ackFor(m)));
      return;
    }
    if (m.sequenceNumber > this.expectedSeq) {
      // Early: hold it back (and acknowledge it) unless too many are already held back, in which
      // case the peer will resend it later.
      if (this.heldBack.size >= HELD_BACK_LIMIT) return;
      this.heldBack.set(m.sequenceNumber, m);
      this.link.send(encodeMessage(ackFor(m)));
      return;
    }
    this.link.send(encodeMessage(ackFor(m)));
    this.deliver(m);
    for (let next = this.heldBack.get(this.expectedSeq); next && !this.closed; next = this.heldBack.get(this.expectedSeq)) {
      this.heldBack.delete(next.sequenceNumber);
      this.deliver(next);
    }
  }

  private deliver(m: AgentMessage): void {
    this.expectedSeq = m.sequenceNumber + 1;
    this.onStream(m);
  }

  private retransmit(): void {
    if (this.closed || this.outstanding.size === 0) return;
    const now = Date.now();
    for (const o of this.outstanding.values()) {
      if (now - o.firstSentAt > this.giveUp) {
        return this.fail(
          new Error(`Session Manager stopped acknowledging data (message ${o.message.sequenceNumber} unacknowledged for ${Math.round(this.giveUp / 1000)} s).`),
        );
      }
      if (now - o.sentAt < this.rto) continue;
      o.sentAt = now;
      o.resent = true;
      this.retransmissions++;
      this.link.send(o.frame);
    }
  }
}
