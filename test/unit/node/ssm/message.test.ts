import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ackFor, decodeMessage, encodeMessage, MalformedFrameError, newMessage, parseAck, PAYLOAD_TYPES } from '../../../../src/node/ssm/message.js';

// The data channel frame, byte for byte as the session-manager-plugin lays it out.

const ID = '01234567-89ab-cdef-0011-223344556677';

test('a frame has the documented layout (space-padded type, big-endian fields, UUID halves swapped, SHA-256 digest)', () => {
  const payload = Buffer.from('hello');
  const f = encodeMessage(
    newMessage({
      messageType: 'input_stream_data',
      schemaVersion: 1,
      createdDate: 1_700_000_000_123,
      sequenceNumber: 7,
      flags: 1,
      messageId: ID,
      payloadType: PAYLOAD_TYPES.output,
      payload,
    }),
  );
  assert.equal(f.length, 125);
  assert.equal(f.readUInt32BE(0), 116);
  assert.equal(f.subarray(4, 36).toString('latin1'), 'input_stream_data'.padEnd(32, ' '));
  assert.equal(f.readUInt32BE(36), 1);
  assert.equal(f.readBigUInt64BE(40), 1_700_000_000_123n);
  assert.equal(f.readBigInt64BE(48), 7n);
  assert.equal(f.readBigUInt64BE(56), 1n);
  assert.equal(f.subarray(64, 80).toString('hex'), '0011223344556677' + '0123456789abcdef');
  assert.deepEqual(f.subarray(80, 112), createHash('sha256').update(payload).digest());
  assert.equal(f.readUInt32BE(112), 1);
  assert.equal(f.readUInt32BE(116), 5);
  assert.equal(f.subarray(120).toString(), 'hello');
});

test('a hand-built frame decodes to its fields, and encode/decode round-trips', () => {
  const payload = Buffer.from('{"x":1}');
  const f = Buffer.alloc(120 + payload.length);
  f.writeUInt32BE(116, 0);
  f.fill(0x20, 4, 36);
  f.write('output_stream_data', 4, 'latin1');
  f.writeUInt32BE(1, 36);
  f.writeBigUInt64BE(42n, 40);
  f.writeBigInt64BE(123456n, 48);
  f.writeBigUInt64BE(2n, 56);
  Buffer.from('0011223344556677', 'hex').copy(f, 64);
  Buffer.from('0123456789abcdef', 'hex').copy(f, 72);
  createHash('sha256').update(payload).digest().copy(f, 80);
  f.writeUInt32BE(5, 112);
  f.writeUInt32BE(payload.length, 116);
  payload.copy(f, 120);
  const m = decodeMessage(f);
  assert.deepEqual(
    { ...m, payload: m.payload.toString() },
    {
      messageType: 'output_stream_data',
      schemaVersion: 1,
      createdDate: 42,
      sequenceNumber: 123456,
      flags: 2,
      messageId: ID,
      payloadType: 5,
      payload: '{"x":1}',
    },
  );
  assert.deepEqual(encodeMessage(m), f);
});

test('an empty payload is valid (its digest is the SHA-256 of nothing)', () => {
  const m = decodeMessage(encodeMessage(newMessage({ messageType: 'start_publication' })));
  assert.equal(m.messageType, 'start_publication');
  assert.equal(m.payload.length, 0);
});

test('malformed frames are refused with MalformedFrameError, never a crash', () => {
  const good = encodeMessage(newMessage({ messageType: 'output_stream_data', payload: Buffer.from('data') }));
  const cases: Array<[string, Buffer, RegExp]> = [
    ['short', good.subarray(0, 50), /shorter than the 116-byte header/],
    ['header without its payload length', good.subarray(0, 118), /118 bytes, shorter than its 120-byte header/],
    ['empty', Buffer.alloc(0), /shorter/],
    [
      'header length',
      (() => {
        const b = Buffer.from(good);
        b.writeUInt32BE(100, 0);
        return b;
      })(),
      /header length 100/,
    ],
    [
      'digest',
      (() => {
        const b = Buffer.from(good);
        b.writeUInt8(b.readUInt8(121) ^ 1, 121);
        return b;
      })(),
      /digest does not match/,
    ],
    [
      'payload length',
      (() => {
        const b = Buffer.from(good);
        b.writeUInt32BE(99, 116);
        return b;
      })(),
      /payload length 99/,
    ],
    ['truncated payload', good.subarray(0, good.length - 1), /payload length 4 but 3 bytes/],
    [
      'negative sequence',
      (() => {
        const b = Buffer.from(good);
        b.writeBigInt64BE(-1n, 48);
        return b;
      })(),
      /sequence number -1/,
    ],
    [
      'blank type',
      (() => {
        const b = Buffer.from(good);
        b.fill(0x20, 4, 36);
        return b;
      })(),
      /empty message type/,
    ],
  ];
  for (const [name, frame, why] of cases) {
    assert.throws(
      () => decodeMessage(frame),
      (e: unknown) => e instanceof MalformedFrameError && why.test(e.message),
      name,
    );
  }
});

test('the type is trimmed of NUL and space at both ends, as the plugin trims it', () => {
  const f = encodeMessage(newMessage({ messageType: 'acknowledge', payload: Buffer.from('{}') }));
  f.fill(0, 4, 36);
  f.write(' \0output_stream_data', 6, 'latin1');
  assert.equal(decodeMessage(f).messageType, 'output_stream_data');
});

test('header lengths 112 to 116 are read (the payload type only when the header holds it); others are refused', () => {
  const payload = Buffer.from('{"Output":"bye"}');
  for (const hl of [112, 113, 114, 115, 116]) {
    const f = Buffer.alloc(hl + 4 + payload.length);
    f.writeUInt32BE(hl, 0);
    f.write('channel_closed', 4, 'latin1');
    f.writeBigUInt64BE(1n, 40);
    createHash('sha256').update(payload).digest().copy(f, 80);
    if (hl === 116) f.writeUInt32BE(2, 112);
    f.writeUInt32BE(payload.length, hl);
    payload.copy(f, hl + 4);
    const m = decodeMessage(f);
    assert.equal(m.messageType, 'channel_closed', `HL ${hl}`);
    assert.equal(m.payload.toString(), '{"Output":"bye"}', `HL ${hl}`);
    assert.equal(m.payloadType, hl === 116 ? 2 : 0, `HL ${hl}`);
  }
  for (const hl of [111, 117, 0]) {
    const f = encodeMessage(newMessage({ messageType: 'channel_closed', payload }));
    f.writeUInt32BE(hl, 0);
    assert.throws(() => decodeMessage(f), /header length/, `HL ${hl}`);
  }
});

test('an acknowledgement names the message it acknowledges (type, id, sequence) and parses back', () => {
  const m = newMessage({ messageType: 'output_stream_data', sequenceNumber: 9, payload: Buffer.from('x') });
  const ack = decodeMessage(encodeMessage(ackFor(m)));
  assert.equal(ack.messageType, 'acknowledge');
  assert.equal(ack.flags, 3);
  assert.deepEqual(parseAck(ack), {
    AcknowledgedMessageType: 'output_stream_data',
    AcknowledgedMessageId: m.messageId,
    AcknowledgedMessageSequenceNumber: 9,
    IsSequentialMessage: true,
  });
  assert.throws(() => parseAck({ ...ack, payload: Buffer.from('not json') }), MalformedFrameError);
  assert.throws(() => parseAck({ ...ack, payload: Buffer.from('{}') }), MalformedFrameError);
});
