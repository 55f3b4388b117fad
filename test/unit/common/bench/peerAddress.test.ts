import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { choosePeerAddress, describePeerAddress, PeerAddressError } from '../../../../src/common/bench/peerAddress.js';
import { getPreset, validateParams } from '../../../../src/common/bench/index.js';
import { PREVIEW_PEER_ADDRESS } from '../../../../src/common/bench/presets/iperf3.js';

// How the iperf3 client reaches its peer: what a person expects from the two instances' VPCs.

const a = { vpcId: 'vpc-1', privateIp: '10.0.0.4', publicIp: '54.0.0.4' };
const b = { vpcId: 'vpc-1', privateIp: '10.0.0.5', publicIp: '54.0.0.5' };
const far = { vpcId: 'vpc-2', privateIp: '10.1.0.5', publicIp: '54.1.0.5' };

describe('peer address', () => {
  it('auto is the default: private in one VPC, public across VPCs or when a VPC is unknown', () => {
    assert.equal(validateParams(getPreset('iperf3'), {}).address, 'auto');
    assert.deepEqual(choosePeerAddress('auto', a, b, '54.0.0.5'), { address: '10.0.0.5', kind: 'private', mode: 'auto', reason: 'same-vpc', vpcId: 'vpc-1' });
    assert.deepEqual(choosePeerAddress('auto', a, far, '54.1.0.5'), { address: '54.1.0.5', kind: 'public', mode: 'auto', reason: 'different-vpc' });
    assert.equal(choosePeerAddress('auto', undefined, b, '198.51.100.7').reason, 'vpc-unknown');
    assert.equal(
      choosePeerAddress('auto', undefined, undefined, '198.51.100.7').address,
      '198.51.100.7',
      'a host given by address is reached where ssh reaches it',
    );
    assert.deepEqual(choosePeerAddress('auto', a, { ...b, privateIp: null }, '54.0.0.5'), {
      address: '54.0.0.5',
      kind: 'public',
      mode: 'auto',
      reason: 'no-private-address',
      vpcId: 'vpc-1',
    });
  });

  it('private and public are honoured; private without an address is an error', () => {
    assert.equal(choosePeerAddress('public', a, b, '54.0.0.5').address, '54.0.0.5');
    assert.equal(choosePeerAddress('private', a, far, '54.1.0.5').address, '10.1.0.5');
    assert.throws(() => choosePeerAddress('private', a, { vpcId: 'vpc-1' }, 'h'), PeerAddressError);
  });

  it('says which address and why, in one line', () => {
    assert.equal(describePeerAddress(choosePeerAddress('auto', a, b, 'x')), 'private address 10.0.0.5 (both instances are in vpc-1)');
    assert.equal(describePeerAddress(choosePeerAddress('auto', a, far, '54.1.0.5')), 'public address 54.1.0.5 (the instances are in different VPCs)');
    assert.equal(describePeerAddress(choosePeerAddress('public', a, b, '54.0.0.5')), 'public address 54.0.0.5 (address=public was asked for)');
  });

  it('the preview stand-in is an address the script generator accepts', () => {
    const p = getPreset('iperf3');
    const params = validateParams(p, {});
    const ctx = { runId: 'preview-run', runDir: '/tmp/tagssh-preview-run', peerAddress: PREVIEW_PEER_ADDRESS };
    assert.match(p.script(params as never, ctx), /'iperf3' '-c' 'PEER-ADDRESS'/);
    assert.match(p.peerScript!({ ...params, serverBind: true } as never, ctx), /iperf3 -s -1 -p 5201 -B 'PEER-ADDRESS'/);
  });
});
