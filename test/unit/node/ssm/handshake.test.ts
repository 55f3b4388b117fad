import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { answerHandshake, customerMessageOf } from '../../../../src/node/ssm/handshake.js';
import { decodeMessage } from '../../../../src/node/ssm/message.js';

// The client's handshake answer against the session-manager-plugin's own answer to the same
// request (both fixtures written by the upstream code; see test/fixtures/upstream/ssm/README.md).

const DIR = new URL('../../../fixtures/upstream/ssm/', import.meta.url);
const payloadOf = (file: string) => decodeMessage(readFileSync(new URL(file, DIR))).payload;

test("the answer to the agent's port handshake is the plugin's answer, byte for byte", () => {
  const a = answerHandshake(payloadOf('agent/agent-handshake-request-port.bin'));
  assert.equal(a.body.toString(), payloadOf('plugin/plugin-handshake-response-port.bin').toString());
  assert.equal(a.sessionType, 'Port');
  assert.deepEqual(a.properties, { portNumber: '22' });
  assert.equal(a.agentVersion, '3.3.0.0');
  assert.equal(a.kms, false);
});

test("the agent's KMS handshake: SessionType accepted, KMSEncryption answered unsupported (any status but 1 makes the agent cancel)", () => {
  const a = answerHandshake(payloadOf('agent/agent-handshake-request-kms.bin'));
  assert.equal(a.kms, true);
  assert.equal(a.sessionType, 'Standard_Stream');
  const body = JSON.parse(a.body.toString()) as { ProcessedClientActions: Array<{ ActionType: string; ActionStatus: number }>; Errors: string[] };
  assert.deepEqual(
    body.ProcessedClientActions.map((p) => [p.ActionType, p.ActionStatus]),
    [
      ['SessionType', 1],
      ['KMSEncryption', 3],
    ],
  );
  assert.deepEqual(body.Errors, ['Unsupported action KMSEncryption']);
});

test('an unknown session type is refused as the plugin refuses it; a handshake that is not JSON is an error', () => {
  const a = answerHandshake(
    Buffer.from(JSON.stringify({ RequestedClientActions: [{ ActionType: 'SessionType', ActionParameters: { SessionType: 'Telepathy' } }] })),
  );
  assert.equal(a.sessionType, '');
  const body = JSON.parse(a.body.toString()) as { ProcessedClientActions: Array<{ ActionStatus: number; Error: string }> };
  assert.equal(body.ProcessedClientActions[0]?.ActionStatus, 2);
  assert.match(body.ProcessedClientActions[0]?.Error ?? '', /Unknown session type Telepathy/);
  assert.throws(() => answerHandshake(Buffer.from('{nope')), /not JSON/);
});

test("HandshakeComplete's CustomerMessage is read ('' in the agent's plain port session)", () => {
  assert.equal(customerMessageOf(payloadOf('agent/agent-handshake-complete.bin')), '');
  assert.equal(
    customerMessageOf(Buffer.from('{"HandshakeTimeToComplete":1,"CustomerMessage":"This session is encrypted using AWS KMS."}')),
    'This session is encrypted using AWS KMS.',
  );
  assert.equal(customerMessageOf(Buffer.from('garbage')), '');
});
