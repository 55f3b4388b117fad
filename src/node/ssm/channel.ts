import { ackFor, decodeMessage, encodeMessage, MalformedFrameError, MESSAGE_TYPES, newMessage, parseAck, type AgentMessage } from './message.js';

// Reliable, in-order delivery over the data channel, as both ends of Session Manager do it:
// every stream message carries the sender's next sequence number and is kept until the peer
// acknowledges it (resent after a retransmission timeout estimated from the round trip, the
// way TCP does); every stream message received is acknowledged, delivered in sequence order,
// early ones held back until the gap is filled, duplicates dropped. The client sends
// input_stream_data and receives output_stream_data; the agent the reverse.
//
// As the real ends behave (aws/session-manager-plugin src/datachannel/streaming.go and
// aws/amazon-ssm-agent agent/session/datachannel/datachannel.go at the commits named in
// test/fixtures/upstream/ssm/README.md):
//  - a frame that does not parse or whose digest is wrong is dropped and counted, never fatal
//    (the plugin logs and drops it; the sender resends);
//  - pause_publication holds new data; it is cleared by start_publication and, as the agent clears
//    it, by any incoming stream data or acknowledgement (the service does not always send
//    start_publication). Time spent paused does not count toward giving up. New data is held at
//    most pauseHoldMs: a pause that neither start_publication nor the agent's data ends (an idle
//    agent back from a reconnect sends nothing) must not hold keystrokes forever; past that the
//    channel sends as the plugin always does (it ignores pause_publication altogether);
//  - unacknowledged data is given up after 5 minutes (the plugin's ResendMaxAttempt, 3000 resends
//    100 ms apart);
//  - early messages are held back up to a count and a byte budget; beyond it they are neither kept
//    nor acknowledged, and the peer resends them.

type Role = 'client' | 'agent';

interface FrameLink {
  send(frame: Buffer): void;
}

export interface ChannelOptions {
  /** Unacknowledged messages allowed in flight before send() waits. */
  window?: number;
  rtoMinMs?: number;
  rtoMaxMs?: number;
  /** A message unacknowledged this long (not counting time paused) ends the channel. */
  giveUpMs?: number;
  /** The longest a pause_publication holds new data. */
  pauseHoldMs?: number;
}

interface Outstanding {
  message: AgentMessage;
  frame: Buffer;
  firstSentAt: number;
  /** pausedTotal() when it was first sent: what pausing adds later is not held against it. */
  pausedBefore: number;
  sentAt: number;
  resent: boolean;
}

/** Early messages held back: at most this many (both real ends' IncomingMessageBufferCapacity is 10000 or more)… */
const HELD_BACK_LIMIT = 10_000;
/** …and at most this many payload bytes (a peer's frames may be far larger than the 1 KiB both ends send). */
export const HELD_BACK_BYTES = 16 * 1024 * 1024;
/** The plugin's ResendMaxAttempt × ResendSleepInterval: 3000 × 100 ms. */
const GIVE_UP_MS = 5 * 60_000;
const PAUSE_HOLD_MS = 2_000;

export class SequencedChannel {
  private readonly sendType: string;
  private readonly receiveType: string;
  private nextSeq = 0;
  private expectedSeq = 0;
  private readonly outstanding = new Map<number, Outstanding>();
  private readonly heldBack = new Map<number, AgentMessage>();
  private heldBackBytes = 0;
  private waiters: Array<() => void> = [];
  /** When the current pause began, or undefined when not paused. */
  private pausedAt: number | undefined;
  /** Milliseconds spent paused in earlier pauses. */
  private pausedEarlier = 0;
  private closed = false;
  private srtt: number | undefined;
  private rttvar = 0;
  private rto: number;
  private readonly timer: NodeJS.Timeout;
  private readonly window: number;
  private readonly rtoMin: number;
  private readonly rtoMax: number;
  private readonly giveUp: number;
  private readonly pauseHold: number;
  /** Messages retransmitted so far (the lab's loss tests read it). */
  retransmissions = 0;
  /** Frames dropped because they did not parse or their digest was wrong. */
  malformed = 0;

  /** In-order stream messages from the peer. */
  onStream: (m: AgentMessage) => void = () => {};
  /** channel_closed and anything else that is not stream data, an ack or flow control. */
  onControl: (m: AgentMessage) => void = () => {};
  onFailure: (e: Error) => void = () => {};
  /** A frame was dropped as malformed (after `malformed` counts it). */
  onMalformed: (e: MalformedFrameError) => void = () => {};

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
    this.giveUp = opts.giveUpMs ?? GIVE_UP_MS;
    this.pauseHold = opts.pauseHoldMs ?? PAUSE_HOLD_MS;
    this.rto = Math.min(this.rtoMax, Math.max(this.rtoMin, 200));
    this.timer = setInterval(() => this.retransmit(), Math.max(20, Math.floor(this.rtoMin / 2)));
    this.timer.unref();
  }

  /** Bytes from the peer's WebSocket. A malformed frame is dropped and counted (the peer resends what matters). */
  receive(frame: Buffer): void {
    if (this.closed) return;
    let m: AgentMessage;
    try {
      m = decodeMessage(frame);
      if (m.messageType === MESSAGE_TYPES.ack) return this.acknowledged(m);
    } catch (e) {
      this.malformed++;
      return this.onMalformed(e instanceof MalformedFrameError ? e : new MalformedFrameError(String(e)));
    }
    if (m.messageType === this.receiveType) {
      this.resume();
      return this.arrived(m);
    }
    if (m.messageType === MESSAGE_TYPES.pausePublication) {
      this.pausedAt ??= Date.now();
      return;
    }
    if (m.messageType === MESSAGE_TYPES.startPublication) return this.resume();
    this.onControl(m);
  }

  get paused(): boolean {
    return this.pausedAt !== undefined;
  }

  private resume(): void {
    if (this.pausedAt === undefined) return;
    this.pausedEarlier += Date.now() - this.pausedAt;
    this.pausedAt = undefined;
    this.wake();
  }

  /** New data waits: the peer paused publication, not longer than pauseHoldMs ago. */
  private holding(now: number): boolean {
    return this.pausedAt !== undefined && now - this.pausedAt < this.pauseHold;
  }

  /** Milliseconds spent paused so far, the current pause included. */
  private pausedTotal(now: number): number {
    return this.pausedEarlier + (this.pausedAt === undefined ? 0 : now - this.pausedAt);
  }

  /** Queues one stream message; resolves once it is in flight (waits while the window is full or the peer paused publication). */
  async send(payloadType: number, payload: Buffer, flags = 0): Promise<void> {
    while (!this.closed && (this.holding(Date.now()) || this.outstanding.size >= this.window)) await new Promise<void>((r) => this.waiters.push(r));
    if (this.closed) throw new Error('The Session Manager channel is closed.');
    const seq = this.nextSeq++;
    // Flags stay 0 on stream data, as the session-manager-plugin sends it.
    const message = newMessage({ messageType: this.sendType, sequenceNumber: seq, payloadType, payload, flags });
    const frame = encodeMessage(message);
    const now = Date.now();
    this.outstanding.set(seq, { message, frame, firstSentAt: now, pausedBefore: this.pausedTotal(now), sentAt: now, resent: false });
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
    this.resume();
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
      // Early: hold it back (and acknowledge it) unless too many, or too many bytes, are already
      // held back, in which case the peer will resend it later.
      if (this.heldBack.has(m.sequenceNumber)) return this.link.send(encodeMessage(ackFor(m)));
      if (this.heldBack.size >= HELD_BACK_LIMIT || this.heldBackBytes + m.payload.length > HELD_BACK_BYTES) return;
      this.heldBack.set(m.sequenceNumber, m);
      this.heldBackBytes += m.payload.length;
      this.link.send(encodeMessage(ackFor(m)));
      return;
    }
    this.link.send(encodeMessage(ackFor(m)));
    this.deliver(m);
    for (let next = this.heldBack.get(this.expectedSeq); next && !this.closed; next = this.heldBack.get(this.expectedSeq)) {
      this.heldBack.delete(next.sequenceNumber);
      this.heldBackBytes -= next.payload.length;
      this.deliver(next);
    }
  }

  private deliver(m: AgentMessage): void {
    this.expectedSeq = m.sequenceNumber + 1;
    this.onStream(m);
  }

  private retransmit(): void {
    if (this.closed) return;
    const now = Date.now();
    if (this.pausedAt !== undefined && !this.holding(now) && this.waiters.length) this.wake();
    if (this.outstanding.size === 0) return;
    const paused = this.pausedTotal(now);
    for (const o of this.outstanding.values()) {
      if (now - o.firstSentAt - (paused - o.pausedBefore) > this.giveUp) {
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
