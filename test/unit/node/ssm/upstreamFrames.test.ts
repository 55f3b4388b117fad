import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeMessage, encodeMessage, MalformedFrameError, parseAck } from '../../../../src/node/ssm/message.js';

// Frames written by the real implementations, decoded and re-encoded byte for byte by message.ts.
// The bytes come from running aws/session-manager-plugin at 61cf1288c7c66b4cbff922b7ed8a6604b3a3c2ea
// (src/message/messageparser.go, src/datachannel/streaming.go) and aws/amazon-ssm-agent at
// 1c217c89b42de51d4f4063363d8ec1f2eef56055 (agent/session/datachannel/datachannel.go,
// agent/session/contracts/agentmessage.go); each manifest records how that code itself decoded
// them. test/fixtures/upstream/ssm/README.md says which call made which file.

const DIR = new URL('../../../fixtures/upstream/ssm/', import.meta.url);

interface GoDecoded {
  File: string;
  HeaderLength: number;
  MessageType: string;
  SchemaVersion: number;
  CreatedDate: number;
  SequenceNumber: number;
  Flags: number;
  MessageId: string;
  PayloadType: number;
  PayloadBase64: string;
  ValidateError?: string;
  Extra?: Record<string, unknown>;
}

function manifest(dir: 'agent' | 'plugin'): GoDecoded[] {
  return JSON.parse(readFileSync(new URL(`${dir}/${dir}-manifest.json`, DIR), 'utf8')) as GoDecoded[];
}

const frame = (dir: string, file: string) => readFileSync(new URL(`${dir}/${file}`, DIR));
const entry = (dir: 'agent' | 'plugin', file: string) => manifest(dir).find((e) => e.File === file)!;

/** What ours must read where Go read it (Go reads PayloadType at 112 even when the header is 112 bytes: it is not there). */
function expectSame(dir: 'agent' | 'plugin', e: GoDecoded): void {
  const m = decodeMessage(frame(dir, e.File));
  assert.equal(m.messageType, e.MessageType, `${e.File}: type`);
  assert.equal(m.schemaVersion, e.SchemaVersion, `${e.File}: schema`);
  assert.equal(m.createdDate, e.CreatedDate, `${e.File}: created`);
  assert.equal(m.sequenceNumber, e.SequenceNumber, `${e.File}: sequence`);
  assert.equal(m.flags, e.Flags, `${e.File}: flags`);
  assert.equal(m.messageId, e.MessageId, `${e.File}: id`);
  assert.equal(m.payload.toString('base64'), e.PayloadBase64, `${e.File}: payload`);
  assert.equal(m.payloadType, e.HeaderLength >= 116 ? e.PayloadType : 0, `${e.File}: payload type`);
}

for (const dir of ['agent', 'plugin'] as const) {
  test(`every ${dir} frame that its own code accepts decodes to what that code read`, () => {
    const accepted = manifest(dir).filter((e) => !e.ValidateError);
    assert.ok(accepted.length >= 5);
    for (const e of accepted) expectSame(dir, e);
  });
}

test('the frames the plugin and the agent serialize re-encode byte for byte', () => {
  for (const dir of ['agent', 'plugin'] as const) {
    for (const e of manifest(dir).filter((x) => !x.File.startsWith('constructed-') && !x.File.startsWith('mutated-'))) {
      const bytes = frame(dir, e.File);
      assert.deepEqual(encodeMessage(decodeMessage(bytes)), bytes, e.File);
    }
  }
});

test("the plugin's test UUID lays out low half first: a508b5f073f31b16dd01e56bff48483e at bytes 64-79", () => {
  const bytes = frame('plugin', 'plugin-input-data-testuuid.bin');
  assert.equal(bytes.subarray(64, 80).toString('hex'), 'a508b5f073f31b16dd01e56bff48483e');
  const m = decodeMessage(bytes);
  assert.equal(m.messageId, 'dd01e56b-ff48-483e-a508-b5f073f31b16');
  assert.equal(m.createdDate, 1503434274948);
  assert.equal(m.payload.toString(), 'testPayload');
});

test("acknowledgements from both sides parse: the agent's names the plugin's test message", () => {
  const fromAgent = parseAck(decodeMessage(frame('agent', 'agent-acknowledge.bin')));
  assert.deepEqual(fromAgent, {
    AcknowledgedMessageType: 'input_stream_data',
    AcknowledgedMessageId: 'dd01e56b-ff48-483e-a508-b5f073f31b16',
    AcknowledgedMessageSequenceNumber: 0,
    IsSequentialMessage: true,
  });
  const agentOutput = decodeMessage(frame('agent', 'agent-output-data.bin'));
  const fromPlugin = parseAck(decodeMessage(frame('plugin', 'plugin-acknowledge.bin')));
  assert.equal(fromPlugin.AcknowledgedMessageId, agentOutput.messageId);
  assert.equal(fromPlugin.AcknowledgedMessageSequenceNumber, agentOutput.sequenceNumber);
});

test('a channel_closed with a 112-byte header (no PayloadType, NUL-padded type) reads as the plugin reads it, and re-encodes byte for byte', () => {
  const e = entry('plugin', 'constructed-channel-closed-112.bin');
  assert.equal(e.HeaderLength, 112);
  assert.equal(e.Extra?.OutputMessageHandlerStopped, true, 'the plugin ends the session on it');
  const bytes = frame('plugin', e.File);
  const m = decodeMessage(bytes);
  expectSame('plugin', e);
  assert.equal(m.headerLength, 112);
  assert.equal((JSON.parse(m.payload.toString()) as { Output: string }).Output, e.Extra?.ChannelClosedOutput);
  assert.deepEqual(encodeMessage(m), bytes);
});

test('start/pause_publication are not digest-checked (the plugin skips them); a data frame with a bad digest is refused as the plugin refuses it', () => {
  for (const file of ['constructed-pause-publication-bad-digest.bin', 'constructed-start-publication-bad-digest.bin']) {
    const e = entry('plugin', file);
    assert.equal(e.ValidateError, '', `${file}: the plugin accepts it`);
    expectSame('plugin', e);
  }
  const bad = entry('plugin', 'mutated-output-data-bad-digest.bin');
  assert.match(bad.ValidateError ?? '', /payload Hash is not valid/);
  assert.throws(
    () => decodeMessage(frame('plugin', bad.File)),
    (err: unknown) => err instanceof MalformedFrameError && /digest/.test(err.message),
  );
});
