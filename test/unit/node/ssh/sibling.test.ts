import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { siblingOf, type Connect } from '../../../../src/node/ssh/sibling.js';
import type { ConnectOptions, SshConnection } from '../../../../src/node/ssh/connectionTypes.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';

// Another connection like the first (for a copy's extra channels): the same target and trust, no
// prompts, no first-contact acceptance on any hop, and none at all over a tunnel.

function recorder() {
  const calls: Array<{ target: ConnectTarget; opts: ConnectOptions }> = [];
  const connect: Connect = async (target, opts) => {
    calls.push({ target, opts });
    return {} as SshConnection;
  };
  return { calls, connect };
}

const bastion: ConnectTarget = { host: '198.51.100.1', port: 22, user: 'ec2-user', label: 'bastion', acceptNewHostKey: 'SHA256:abc' };
const target: ConnectTarget = {
  host: '10.0.0.5',
  port: 2222,
  user: 'admin',
  label: 'web-1',
  instanceId: 'i-0123456789abcdef0',
  region: 'ap-northeast-1',
  identityFile: '/keys/web.pem',
  acceptNewHostKey: true,
  jump: [bastion],
};

describe('siblingOf', () => {
  it('connects to the same target with the same key and trust, asking nobody anything and accepting no new host key on any hop', async () => {
    const { calls, connect } = recorder();
    const knownHosts = new KnownHostsStore('/nonexistent/known_hosts.json');
    const opts: ConnectOptions = {
      knownHosts,
      consoleOutput: null,
      agent: '/tmp/agent.sock',
      settingsIdentity: '/keys/default',
      timeoutMs: 5000,
      keepaliveMs: 1000,
      askPassphrase: async () => 'secret',
      askSecret: async () => ['pw'],
      onProgress: () => {},
      signal: new AbortController().signal,
    };
    const again = siblingOf(target, opts, connect)!;
    const stop = new AbortController();
    await again(stop.signal);
    assert.equal(calls.length, 1);
    const { target: t, opts: o } = calls[0]!;
    const { acceptNewHostKey: _a, ...sameTarget } = target;
    const { acceptNewHostKey: _b, ...sameBastion } = bastion;
    assert.deepEqual(t, { ...sameTarget, jump: [sameBastion] });
    assert.equal(o.knownHosts, knownHosts);
    assert.deepEqual(
      { agent: o.agent, consoleOutput: o.consoleOutput, settingsIdentity: o.settingsIdentity, timeoutMs: o.timeoutMs, keepaliveMs: o.keepaliveMs },
      { agent: '/tmp/agent.sock', consoleOutput: null, settingsIdentity: '/keys/default', timeoutMs: 5000, keepaliveMs: 1000 },
    );
    assert.equal(o.askPassphrase, undefined);
    assert.equal(o.askSecret, undefined);
    assert.equal(o.onProgress, undefined);
    assert.equal(o.signal, stop.signal, "the caller's signal, not the first connection's");
  });

  it('offers none over a tunnel (EC2 Instance Connect Endpoint, Session Manager), on the target or a bastion', () => {
    const { connect } = recorder();
    const tunnel = { name: 'ssm' as const, label: 'Session Manager', open: async () => new PassThrough() };
    assert.equal(siblingOf({ ...target, jump: [], transport: tunnel }, {}, connect), undefined);
    assert.equal(siblingOf({ ...target, jump: [{ ...bastion, transport: tunnel }] }, {}, connect), undefined);
    assert.notEqual(siblingOf(target, {}, connect), undefined);
  });
});
