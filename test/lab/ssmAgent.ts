import { PT, readFrame, writeFrame, type WireFrame } from './ssmWire.js';

// The agent's half of the data channel, as aws/amazon-ssm-agent 1c217c89
// agent/session/datachannel/datachannel.go runs it (read there, re-written here; no import from
// TagSSH's src/):
//  - input_stream_data in sequence goes to the handler first and is acknowledged only when the
//    handler took it: a handler that is not ready yet (a port session whose TCP connection to
//    sshd is not up) leaves it unacknowledged and the client resends it;
//  - before the handshake completes, stream data other than the handshake answer is
//    acknowledged and dropped;
//  - early messages are acknowledged and kept (up to 10000), late ones acknowledged again;
//  - every output message is kept until acknowledged; every 100 ms the OLDEST one is resent when
//    it has waited longer than the retransmission timeout (RTT + max(10 ms, 4 RTTVAR), at most
//    1 s, starting at 200 ms);
//  - pause_publication stops sending and resending; start_publication, and any incoming stream
//    data or acknowledgement, clear it;
//  - nothing checks the payload digest on this side (the agent's Validate does not).
// One lab bound the agent lacks: output waits while 1024 messages are unacknowledged (the real
// agent instead sleeps 1 ms after each 1 KiB read), so a stalled client cannot grow the lab's memory.

export interface AgentLink {
  send(frame: Buffer): void;
}

/** What the plugin-side handler made of one input message. */
export type Taken = 'taken' | 'not-ready';

const INCOMING_CAPACITY = 10_000;
const RESEND_TICK_MS = 100;
const CLOCK_GRANULARITY_MS = 10;
const MAX_RTO_MS = 1_000;
export const LAB_OUTPUT_WINDOW = 1024;

interface Pending {
  frame: Buffer;
  seq: number;
  bytes: number;
  lastSent: number;
}

export class AgentDataChannel {
  private expected = 0;
  private nextSeq = 0;
  private readonly outgoing: Pending[] = [];
  private readonly incoming = new Map<number, WireFrame>();
  private rtt = 100;
  private rttVar = 0;
  private rto = 200;
  private readonly timer: NodeJS.Timeout;
  private waiters: Array<() => void> = [];
  private closed = false;
  paused = false;
  handshakeComplete = false;
  retransmissions = 0;
  /** Payload bytes of output the client has acknowledged. */
  outputAcked = 0;
  /** Input messages left unacknowledged because the handler was not ready. */
  notReady = 0;
  /** Input messages dropped because they came before the handshake completed. */
  beforeHandshake = 0;
  /** Frames from the client whose digest did not match (counted, not refused: the agent does not check). */
  badDigests = 0;

  onHandshakeResponse: (payload: Buffer) => void = () => {};
  onInput: (f: WireFrame) => Taken = () => 'taken';
  onChannelClosed: () => void = () => {};
  /** Publication resumed (start_publication or implied): the port relay reads again. */
  onActive: () => void = () => {};

  constructor(private readonly link: AgentLink) {
    this.timer = setInterval(() => this.resendOldest(), RESEND_TICK_MS);
    this.timer.unref();
  }

  receive(raw: Buffer): void {
    if (this.closed) return;
    const f = readFrame(raw);
    if (!f) return; // the agent logs the deserialize/validate error and goes on
    if (!f.digestOk && f.payload.length) this.badDigests++;
    switch (f.type) {
      case 'input_stream_data':
        return this.streamData(f);
      case 'acknowledge':
        return this.acknowledged(f);
      case 'channel_closed':
        return this.onChannelClosed();
      case 'pause_publication':
        this.paused = true;
        return;
      case 'start_publication':
        return this.activate();
      default:
      // "Invalid message type received": ignored.
    }
  }

  /** Sends one output message (empty data is not sent, as the agent skips it). */
  async sendOutput(payloadType: number, data: Buffer): Promise<void> {
    if (!data.length) return;
    while (!this.closed && this.outgoing.length >= LAB_OUTPUT_WINDOW) await new Promise<void>((r) => this.waiters.push(r));
    if (this.closed) return;
    const seq = this.nextSeq++;
    const frame = writeFrame({ type: 'output_stream_data', seq, flags: seq === 0 ? 1 : 0, payloadType, payload: data });
    if (!this.paused) this.link.send(frame);
    this.outgoing.push({ frame, seq, bytes: data.length, lastSent: Date.now() });
  }

  /** Resolves once every output message is acknowledged, or after 2 s (PrepareToCloseChannel). */
  async flushed(): Promise<void> {
    const deadline = Date.now() + 2_000;
    while (!this.closed && this.outgoing.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const w of this.waiters.splice(0)) w();
  }

  private activate(): void {
    if (!this.paused) return;
    this.paused = false;
    this.onActive();
  }

  private ack(f: WireFrame): void {
    const body = { AcknowledgedMessageType: f.type, AcknowledgedMessageId: f.id, AcknowledgedMessageSequenceNumber: f.seq, IsSequentialMessage: true };
    this.link.send(writeFrame({ type: 'acknowledge', flags: 3, payload: Buffer.from(JSON.stringify(body)) }));
  }

  private streamData(f: WireFrame): void {
    this.activate();
    if (f.seq === this.expected) {
      if (this.process(f) === 'not-ready') {
        this.notReady++;
        return;
      }
      this.ack(f);
      this.expected++;
      for (let next = this.incoming.get(this.expected); next; next = this.incoming.get(this.expected)) {
        if (this.process(next) === 'not-ready') return;
        this.incoming.delete(this.expected);
        this.expected++;
      }
    } else if (f.seq > this.expected) {
      if (this.incoming.size >= INCOMING_CAPACITY) return;
      this.ack(f);
      this.incoming.set(f.seq, f);
    } else {
      this.ack(f);
    }
  }

  private process(f: WireFrame): Taken {
    if (f.payloadType === PT.handshakeResponse) {
      this.onHandshakeResponse(f.payload);
      return 'taken';
    }
    if (!this.handshakeComplete) {
      this.beforeHandshake++;
      return 'taken';
    }
    return this.onInput(f);
  }

  private acknowledged(f: WireFrame): void {
    this.activate();
    let seq: number;
    try {
      seq = Number((JSON.parse(f.payload.toString('utf8')) as { AcknowledgedMessageSequenceNumber?: unknown }).AcknowledgedMessageSequenceNumber);
    } catch {
      return;
    }
    const i = this.outgoing.findIndex((p) => p.seq === seq);
    if (i < 0) return;
    const [p] = this.outgoing.splice(i, 1);
    this.outputAcked += p!.bytes;
    const sample = Date.now() - p!.lastSent;
    this.rttVar = 0.75 * this.rttVar + 0.25 * Math.abs(this.rtt - sample);
    this.rtt = 0.875 * this.rtt + 0.125 * sample;
    this.rto = Math.min(MAX_RTO_MS, this.rtt + Math.max(CLOCK_GRANULARITY_MS, 4 * this.rttVar));
    for (const w of this.waiters.splice(0)) w();
  }

  private resendOldest(): void {
    if (this.closed || this.paused) return;
    const oldest = this.outgoing[0];
    if (!oldest || Date.now() - oldest.lastSent <= this.rto) return;
    this.retransmissions++;
    this.link.send(oldest.frame);
    oldest.lastSent = Date.now();
  }
}
