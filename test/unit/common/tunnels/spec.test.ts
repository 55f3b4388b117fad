import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTunnelText, parseTunnelText, tunnelProblems } from '../../../../src/common/tunnels/spec.js';

// The one set of tunnel rules both faces check: OpenSSH's -L/-D/-R text forms, ports, hosts and
// the refusal to listen on every interface unless that is written out.

const codes = (kind: 'local' | 'dynamic' | 'remote', text: string, root = false) =>
  parseTunnelText(kind, text, root).problems.map((p) => `${p.field}:${p.code}`);

describe('parseTunnelText', () => {
  it('reads the OpenSSH forms, bind address optional', () => {
    assert.deepEqual(parseTunnelText('local', '8080:db.internal:5432', false), {
      spec: { kind: 'local', port: 8080, host: 'db.internal', hostPort: 5432 },
      problems: [],
    });
    assert.deepEqual(parseTunnelText('local', '127.0.0.2:8080:10.0.0.5:80', false).spec, {
      kind: 'local',
      bind: '127.0.0.2',
      port: 8080,
      host: '10.0.0.5',
      hostPort: 80,
    });
    assert.deepEqual(parseTunnelText('local', '[::1]:8080:[fd00::5]:80', false).spec, {
      kind: 'local',
      bind: '::1',
      port: 8080,
      host: 'fd00::5',
      hostPort: 80,
    });
    assert.deepEqual(parseTunnelText('dynamic', '1080', false).spec, { kind: 'dynamic', port: 1080 });
    assert.deepEqual(parseTunnelText('dynamic', '0.0.0.0:1080', false).spec, { kind: 'dynamic', bind: '0.0.0.0', port: 1080 });
    assert.deepEqual(parseTunnelText('remote', '9000:localhost:3000', false).spec, { kind: 'remote', port: 9000, host: 'localhost', hostPort: 3000 });
  });

  it('round-trips through formatTunnelText', () => {
    for (const [k, t] of [
      ['local', '8080:db:5432'],
      ['local', '[::1]:8080:[fd00::5]:80'],
      ['dynamic', '127.0.0.1:1080'],
      ['remote', '9000:localhost:3000'],
    ] as const) {
      assert.equal(formatTunnelText(parseTunnelText(k, t, false).spec!), t);
    }
  });

  it('names what is wrong and where', () => {
    assert.deepEqual(codes('local', '8080'), ['host:hostMissing']);
    assert.deepEqual(codes('local', '8080:db'), ['hostPort:hostPortMissing']);
    assert.deepEqual(codes('local', '8080:db:'), ['hostPort:hostPortMissing']);
    assert.deepEqual(codes('local', '70000:db:80'), ['port:portInvalid']);
    assert.deepEqual(codes('local', 'http:db:80'), ['port:portInvalid']);
    assert.deepEqual(codes('local', '8080:db:0'), ['hostPort:portInvalid']);
    assert.deepEqual(codes('local', '8080:bad host!:80'), ['host:hostInvalid']);
    assert.deepEqual(codes('local', '80:db:80'), ['port:portPrivileged']);
    assert.deepEqual(codes('local', '80:db:80', true), [], 'root may listen on a privileged port');
    assert.deepEqual(codes('local', ':8080:db:80'), ['bind:bindImplicitAll']);
    assert.deepEqual(codes('local', '*:8080:db:80'), ['bind:bindImplicitAll']);
    assert.deepEqual(codes('dynamic', ':1080'), ['bind:bindImplicitAll']);
    assert.deepEqual(codes('dynamic', '1080:db:80'), ['port:syntax']);
    assert.deepEqual(codes('local', '[::1:8080:db:80'), ['port:syntax']);
    assert.deepEqual(codes('remote', '0:localhost:3000'), ['port:portInvalid'], 'the server port must be given');
    assert.deepEqual(codes('remote', '80:localhost:3000'), [], "a privileged server port is the server's to refuse");
  });

  it('tunnelProblems checks form fields the same way', () => {
    assert.deepEqual(tunnelProblems({ kind: 'dynamic', port: 1080, host: 'x' }, false), [{ field: 'host', code: 'hostNotAllowed' }]);
    assert.deepEqual(tunnelProblems({ kind: 'local', port: 0, host: 'db', hostPort: 5432 }, false), [], '0 = any free port');
    assert.deepEqual(tunnelProblems({ kind: 'local', port: 1.5, host: '', hostPort: 5432 }, false), [
      { field: 'port', code: 'portInvalid' },
      { field: 'host', code: 'hostMissing' },
    ]);
  });
});
