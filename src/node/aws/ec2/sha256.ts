import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/** The Checksum shape SignatureV4 expects, backed by node:crypto (no extra dependency). */
export class Sha256 {
  private readonly h: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h = secret ? createHmac('sha256', toBytes(secret)) : createHash('sha256');
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.h.update(toBytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
  reset(): void {
    throw new Error('Sha256.reset is not supported');
  }
}

function toBytes(d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof d === 'string') return d;
  if (d instanceof ArrayBuffer) return new Uint8Array(d);
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}
