import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandLineParams, dequote, isSsh, parseCommandLine } from '../../../../src/common/import/cmdline.js';
import { knownText } from '../../../../src/common/import/types.js';

// Tera Term / TTSSH command lines as the manual (doc/en/html/commandline/ttssh.html, teraterm.html)
// writes them, read the way ttlib's GetParamAlloc/DequoteParam and ttxssh.c's TTXParseParam do.

const parse = (line: string) => {
  const s = parseCommandLine([line]);
  return { ...s, host: s.host && knownText(s.host), user: s.user && knownText(s.user), keyFile: s.keyFile && knownText(s.keyFile) };
};

test('the manual examples: host:port, /ssh /2, /auth=, /user=, /keyfile= with a quoted path, /passwd= quoted with "" inside', () => {
  assert.deepEqual(parse('server3:22 /ssh /2 /auth=password /user=guest /passwd=guest'), {
    host: 'server3',
    port: 22,
    user: 'guest',
    keyFile: undefined,
    auth: 'password',
    password: true,
    ask4passwd: false,
    ssh: true,
  });
  const six = parse('server6:22 /ssh /2 /auth=publickey /user=guest /keyfile="C:\\Users\\foo\\Documents\\My keys\\id_ed25519" /passwd="Yu/eA;G2"');
  assert.equal(six.keyFile, 'C:\\Users\\foo\\Documents\\My keys\\id_ed25519');
  assert.equal(six.auth, 'publickey');
  assert.equal(six.password, true);
  assert.deepEqual(commandLineParams('server7:22 /ssh /passwd="foo""bar"').map(dequote), ['server7:22', '/ssh', '/passwd=foo"bar']);
});

test('an unquoted ; ends the line (a comment); a quoted one does not', () => {
  assert.deepEqual(commandLineParams('/C=1 ;serial port'), ['/C=1']);
  assert.deepEqual(commandLineParams('host /passwd="a;b" ;c'), ['host', '/passwd="a;b"']);
  assert.equal(parse('/C=1 ;serial port').notSsh, 'serial');
});

test('user@host:port, ssh:// URLs (a password in the URL is found), host PORT, /P=, IPv6 in brackets', () => {
  const a = parse('user@myhost.example.com:10022 /ssh');
  assert.deepEqual([a.user, a.host, a.port, a.ssh], ['user', 'myhost.example.com', 10022, true]);
  const b = parse('ssh://user:password@server5/ /auth=password');
  assert.deepEqual([b.user, b.host, b.port, b.password], ['user', 'server5', 22, true]);
  assert.equal(parse('ssh://admin@10.0.0.5').password, false);
  assert.equal(parse('myhost 2222').port, 2222);
  assert.equal(parse('myhost /P=2022').port, 2022);
  const v6 = parse('[2001:db8::5]:2222 /ssh');
  assert.deepEqual([v6.host, v6.port], ['2001:db8::5', 2222]);
});

test('what is not SSH: /nossh, /telnet, /T=1, /T=0, telnet://, serial, named pipes, replays; SSH otherwise follows TERATERM.INI', () => {
  assert.equal(isSsh(parseCommandLine(['myserver:23 /nossh /T=1']), true), false);
  assert.equal(isSsh(parseCommandLine(['myserver /telnet']), true), false);
  assert.equal(isSsh(parseCommandLine(['myserver /T=0']), true), false);
  assert.equal(parse('telnet://router:23/').notSsh, 'telnet');
  assert.equal(parse('\\\\.\\pipe\\vmware-serial-port').notSsh, 'pipe');
  assert.equal(parse('/R=readme.txt').notSsh, 'replay');
  assert.equal(isSsh(parseCommandLine(['myserver']), true), true);
  assert.equal(isSsh(parseCommandLine(['myserver']), false), false);
  assert.equal(isSsh(parseCommandLine(['myserver:23']), true), false, 'port 23 without /ssh is telnet');
  assert.equal(isSsh(parseCommandLine(['myserver /t=2']), false), true);
});

test("TTSSH's options are case-sensitive (/AUTH= is not /auth=), Tera Term's are not (/p= is /P=)", () => {
  assert.equal(parse('h /AUTH=publickey').auth, undefined);
  assert.equal(parse('h /auth=PublicKey').auth, 'publickey', 'the value is compared without case');
  assert.equal(parse('h /auth=keyboard-interactive').auth, 'challenge');
  assert.equal(parse('h /p=2200').port, 2200);
});

test('a password a macro asks for at run time is not a password found in the file', () => {
  const s = parseCommandLine(['h /auth=password /user=u /passwd=', { from: 'passwordbox', at: { file: 'a.ttl', line: 3 }, secret: true }]);
  assert.equal(s.password, false);
  assert.equal(parseCommandLine(['h /passwd=']).password, false);
});

test('unknown parts stay attached to the host they belong to', () => {
  const u = { from: 'filereadln', at: { file: 'a.ttl', line: 9 } };
  const s = parseCommandLine([u, ':22 /ssh /user=ec2-user']);
  assert.deepEqual(s.host, [u]);
  assert.equal(s.port, 22);
});
