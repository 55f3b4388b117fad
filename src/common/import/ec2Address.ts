import type { HostTarget } from './types.js';
import { isInstanceId, isRegionName } from '../vocab.js';

// What a host name in a macro or ssh config says about EC2: an IP address (asked of EC2 as a
// public, Elastic or private address), an EC2 DNS name (its address is spelled in it:
// ec2-203-0-113-25.eu-west-1.compute.amazonaws.com, ec2-…compute-1.amazonaws.com for us-east-1,
// ip-10-0-1-5.eu-west-1.compute.internal, ip-10-0-1-5.ec2.internal), an instance id (an SSM
// ProxyCommand's HostName), or another name EC2 knows nothing about.

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function isIpv4(s: string): boolean {
  return IPV4.test(s);
}

function isIpv6(s: string): boolean {
  return /^[0-9a-f:]+$/i.test(s) && s.includes(':') && s.split(':').length <= 8;
}

/** The target a literal host name stands for. */
export function targetOfHost(raw: string): HostTarget {
  const host = raw.trim().replace(/\.$/, '');
  if (isIpv4(host) || isIpv6(host)) return { kind: 'address', address: host.toLowerCase() };
  if (isInstanceId(host)) return { kind: 'instance', id: host };
  const lower = host.toLowerCase();
  const pub = /^ec2-(\d+)-(\d+)-(\d+)-(\d+)\.(?:([a-z0-9-]+)\.)?(compute(?:-1)?)\.amazonaws\.com(?:\.cn)?$/.exec(lower);
  if (pub) {
    const ip = pub.slice(1, 5).join('.');
    const region = pub[5] && isRegionName(pub[5]) ? pub[5] : pub[6] === 'compute-1' ? 'us-east-1' : undefined;
    if (isIpv4(ip)) return { kind: 'ec2dns', host: lower, ip, private: false, ...(region ? { region } : {}) };
  }
  const priv = /^ip-(\d+)-(\d+)-(\d+)-(\d+)\.(?:(?:([a-z0-9-]+)\.compute)|ec2)\.internal$/.exec(lower);
  if (priv) {
    const ip = priv.slice(1, 5).join('.');
    const region = priv[5] && isRegionName(priv[5]) ? priv[5] : priv[5] ? undefined : 'us-east-1';
    if (isIpv4(ip)) return { kind: 'ec2dns', host: lower, ip, private: true, ...(region ? { region } : {}) };
  }
  return { kind: 'host', host };
}
