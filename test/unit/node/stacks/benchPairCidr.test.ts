import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { benchPairTemplate } from '../../../../src/node/stacks/templates/benchPair.js';
import { checkSshCidr } from '../../../../src/node/stacks/stacks.js';

// The SSH rule of bench-pair for an IPv4 and an IPv6 block, evaluated with CloudFormation's
// intrinsic functions as its documentation defines them (Ref, Fn::If, Fn::Not, Fn::Equals,
// Fn::Select, Fn::Split, AWS::NoValue): EC2 takes an IPv6 block only as CidrIpv6.

const NO_VALUE = Symbol('AWS::NoValue');
type Json = unknown;

function evaluate(node: Json, params: Record<string, string>, conditions: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((n) => evaluate(n, params, conditions));
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, Json>;
  const [key] = Object.keys(o);
  const arg = o[key!];
  switch (key) {
    case 'Ref':
      return arg === 'AWS::NoValue' ? NO_VALUE : params[arg as string];
    case 'Condition':
      return evaluate(conditions[arg as string], params, conditions);
    case 'Fn::If': {
      const [cond, yes, no] = arg as [string, Json, Json];
      return evaluate(conditions[cond], params, conditions) === true ? evaluate(yes, params, conditions) : evaluate(no, params, conditions);
    }
    case 'Fn::Not':
      return !(evaluate((arg as Json[])[0], params, conditions) as boolean);
    case 'Fn::Equals': {
      const [a, b] = (arg as Json[]).map((x) => evaluate(x, params, conditions));
      return a === b;
    }
    case 'Fn::Select': {
      const [i, list] = arg as [number, Json];
      return (evaluate(list, params, conditions) as Json[])[i];
    }
    case 'Fn::Split': {
      const [sep, text] = arg as [string, Json];
      return (evaluate(text, params, conditions) as string).split(sep);
    }
    default: {
      const out: Record<string, Json> = {};
      for (const [k, v] of Object.entries(o)) {
        const value = evaluate(v, params, conditions);
        if (value !== NO_VALUE) out[k] = value;
      }
      return out;
    }
  }
}

function sshRule(sshCidr: string): Record<string, Json> {
  const t = benchPairTemplate as unknown as {
    Conditions: Record<string, Json>;
    Resources: { PairSecurityGroup: { Properties: { SecurityGroupIngress: Json[] } } };
  };
  const rules = evaluate(t.Resources.PairSecurityGroup.Properties.SecurityGroupIngress, { SshCidr: sshCidr }, t.Conditions) as Array<Record<string, Json>>;
  return rules.find((r) => r.FromPort === 22)!;
}

describe('bench-pair SSH rule', () => {
  it('an IPv4 block is CidrIp, an IPv6 block CidrIpv6 (never both)', () => {
    const v4 = sshRule('203.0.113.9/32');
    assert.equal(v4.CidrIp, '203.0.113.9/32');
    assert.equal('CidrIpv6' in v4, false);
    const v6 = sshRule('2001:db8:5::9/128');
    assert.equal(v6.CidrIpv6, '2001:db8:5::9/128');
    assert.equal('CidrIp' in v6, false);
  });
});

describe('checkSshCidr', () => {
  it('takes up to /16 and /48 as they are; wider only when confirmed; never /0', () => {
    assert.equal(checkSshCidr('10.1.0.0/16'), '10.1.0.0/16');
    assert.equal(checkSshCidr('2001:db8:1::/48'), '2001:db8:1::/48');
    const wide = (e: Error & { code?: string; hint?: string }) => e.code === 'INVALID_INPUT' && /--allow-wide-ssh-cidr/.test(e.hint ?? '');
    assert.throws(() => checkSshCidr('10.0.0.0/15'), wide);
    assert.throws(() => checkSshCidr('2001:db8::/47'), wide);
    assert.equal(checkSshCidr('10.0.0.0/15', true), '10.0.0.0/15');
    assert.throws(() => checkSshCidr('0.0.0.0/0', true), /whole internet/);
    assert.throws(() => checkSshCidr('::/0', true), /whole internet/);
  });
});
