import type { Instance } from '../../src/common/model/instance.js';

/** An Instance as the inventory lists it: a running t3.micro with a private address only; `over` sets what a test is about. */
export function instanceOf(over: Partial<Instance> = {}): Instance {
  return {
    id: 'i-0001',
    region: 'ap-northeast-1',
    name: 'web-1',
    state: 'running',
    type: 't3.micro',
    az: 'ap-northeast-1a',
    publicIp: null,
    isElasticIp: false,
    privateIp: '10.0.0.1',
    keyName: null,
    imageId: null,
    platform: null,
    platformDetails: null,
    vpcId: null,
    subnetId: null,
    launchTime: null,
    tags: {},
    ...over,
  };
}
