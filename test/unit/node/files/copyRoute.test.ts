import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clock, measuredRate, rememberRate, routeLine, routeOf } from '../../../../src/node/files/copyRoute.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';

// The route a copy takes, said before a large copy with its expected time from the last copy over
// the same route, kept per instance, route and direction under TAGSSH_HOME.

const MiB = 1024 * 1024;
const base: ConnectTarget = { host: '203.0.113.5', port: 22, user: 'ec2-user', label: 'web-1', instanceId: 'i-0abc' };
const opener = (name: 'eice' | 'ssm', label: string) => ({ name, label, open: () => Promise.reject(new Error('not opened here')) });

describe('routeOf', () => {
  it('names the first hop: direct, jump chain, EC2 Instance Connect Endpoint, SSM', () => {
    assert.deepEqual(routeOf(base), { kind: 'direct', text: 'direct SSH to 203.0.113.5:22', key: 'i-0abc direct' });
    const jumped = routeOf({
      ...base,
      host: '10.0.1.5',
      jump: [
        { ...base, label: 'bastion', instanceId: 'i-0b' },
        { ...base, label: 'inner' },
      ],
    });
    assert.equal(jumped.kind, 'jump');
    assert.equal(jumped.text, 'via jump host bastion → inner');
    assert.equal(
      routeOf({ ...base, transport: opener('eice', 'EC2 Instance Connect Endpoint eice-0123') }).text,
      'through EC2 Instance Connect Endpoint eice-0123',
    );
    const ssm = routeOf({ ...base, transport: opener('ssm', 'SSM') });
    assert.deepEqual([ssm.kind, ssm.text], ['ssm', 'through SSM Session Manager']);
    assert.equal(routeOf({ host: '198.51.100.7', port: 2222, user: 'u', label: 'x' }).key, '198.51.100.7:2222 direct');
  });
});

describe('routeLine and the measured rates', () => {
  it('says the expected time from the last copy over the same route and direction; small copies are not kept', () => {
    const home = mkdtempSync(join(tmpdir(), 'tagssh-route-'));
    const env = { TAGSSH_HOME: home };
    try {
      const route = routeOf(base);
      assert.equal(measuredRate(route, 'upload', env), null);
      assert.equal(
        routeLine(route, 512 * MiB, null),
        'Copying 512.0 MiB direct SSH to 203.0.113.5:22: no earlier copy over this route measured its rate; this one will.',
      );
      rememberRate(route, 'upload', 4 * MiB, 100, env);
      assert.equal(measuredRate(route, 'upload', env), null, 'a 4 MiB copy measures round trips, not the route');
      rememberRate(route, 'upload', 100 * MiB, 2000, env);
      assert.equal(measuredRate(route, 'upload', env), 50 * MiB);
      assert.equal(measuredRate(route, 'download', env), null, 'each direction apart');
      assert.equal(measuredRate(routeOf({ ...base, transport: opener('ssm', 'SSM') }), 'upload', env), null, 'each route apart');
      assert.equal(
        routeLine(route, 512 * MiB, 50 * MiB),
        'Copying 512.0 MiB direct SSH to 203.0.113.5:22: expected 0:10 at 50.0 MiB/s (measured by the last copy over this route).',
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('writes times as m:ss, or h:mm:ss past an hour', () => {
    assert.deepEqual([clock(0), clock(59.6), clock(61), clock(3600 * 2 + 65)], ['0:00', '1:00', '1:01', '2:01:05']);
  });
});
