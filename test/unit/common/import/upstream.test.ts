import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { scanFiles } from '../../../../src/common/import/scan.js';
import { describeFound } from '../../../../src/node/import/plan.js';
import { readImportPaths } from '../../../../src/node/import/read.js';

// Tera Term's own files as it ships them (test/fixtures/upstream/teraterm/NOTE.md): the default
// TERATERM.INI with every [Hosts] form the manual documents, the empty ssh_known_hosts, and the
// sample ssh2login.ttl, read as a person's Tera Term folder.

const dir = join(import.meta.dirname, '../../../fixtures/upstream/teraterm');

test("Tera Term's shipped folder: ssh2login.ttl's host and user, every [Hosts] form classified, the INI's password default applied", () => {
  const scan = scanFiles(readImportPaths([dir]));
  const rows = scan.hosts.map((h) => [h.at.file, describeFound(h), h.user ?? null, h.auth ?? null, h.notSsh ?? null, h.passwordFound]);
  assert.deepEqual(rows, [
    // The sample asks for the password in a passwordbox: nothing is written in the file.
    ['ssh2login.ttl', '192.168.1.3', 'nike', 'password', null, false],
    ['TERATERM.INI', 'myhost.example.com', null, 'password', null, false],
    ['TERATERM.INI', '192.0.2.1', null, 'password', null, false],
    ['TERATERM.INI', '2001:db8:1:2:8401:2ff:fe03:405', null, 'password', null, false],
    ['TERATERM.INI', 'fe80::8401:2ff:fe03:405%3', null, 'password', null, false],
    ['TERATERM.INI', 'myhost.example.com', 'user', 'password', null, false],
    ['TERATERM.INI', 'myhost.example.com', 'user', 'password', null, false],
    ['TERATERM.INI', '?', null, 'password', 'serial', false],
    ['TERATERM.INI', '?', null, 'password', 'pipe', false],
    ['TERATERM.INI', '?', null, 'password', 'replay', false],
  ]);
  assert.deepEqual(
    scan.files.map((f) => [f.file, f.kind]),
    [
      ['TERATERM.INI', 'teraterm-ini'],
      ['ssh2login.ttl', 'ttl'],
      ['ssh_known_hosts', 'known-hosts'],
    ],
  );
  assert.deepEqual(scan.knownHosts, [], 'the shipped known_hosts holds only comments');
});
