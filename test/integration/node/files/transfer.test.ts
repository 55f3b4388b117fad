import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSshd } from '../../../lab/useSshd.js';
import { connect, type SshConnection } from '../../../../src/node/ssh/connection.js';
import { FileSession, partialNameFor, type TransferProgress } from '../../../../src/node/files/index.js';
import { SftpDataChannel } from '../../../../src/node/files/sftpDataChannel.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { asChannelRefusal } from '../../../../src/node/ssh/errors.js';
import { AppError } from '../../../../src/common/errors.js';

// Uploads and downloads against a real sshd's SFTP subsystem. The lab's sshd runs on this
// machine, so "remote" paths are checked straight on disk: checksums, modes, times, leftovers.

const lab = useSshd({ prefix: 'tagssh-files-', address: '127.0.0.11' });
let conn: SshConnection;
let files: FileSession;

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const target = (): ConnectTarget => lab.target();
let n = 0;
const fresh = (name: string) => {
  const d = join(lab.dir, `${name}-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
};

/** Every file under `root` with its checksum, relative paths sorted. */
function treeSums(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p, `${rel}${e.name}/`);
      else out[`${rel}${e.name}`] = sha(p);
    }
  };
  walk(root, '');
  return out;
}

// Names a shell would act on, and text that is not ASCII: SFTP must carry them as they are.
const ODD_NAMES = ['with space.txt', `quote'and"dq.txt`, '$(touch PWNED).txt', 'new\nline.txt', '日本語ファイル.txt', '-dash.txt'];

before(async () => {
  await lab.ready;
  conn = await connect(target(), { knownHosts: lab.store, consoleOutput: null, agent: null });
  files = await FileSession.open(conn);
});

after(async () => {
  files?.close();
  conn?.close();
});

describe('FileSession transfers', () => {
  it('uploads and downloads a file byte for byte (sha256 both ways), with progress and no temp file left', async () => {
    const src = join(fresh('src'), 'blob.bin');
    writeFileSync(src, randomBytes(5 * 1024 * 1024 + 123));
    const remote = fresh('remote');
    const seen: TransferProgress[] = [];
    const up = await files.upload([src], remote, { onProgress: (p) => seen.push(p) });
    assert.equal(sha(join(remote, 'blob.bin')), sha(src));
    assert.equal(up.files, 1);
    assert.equal(up.bytes, statSync(src).size);
    assert.deepEqual(readdirSync(remote), ['blob.bin']);
    const last = seen.at(-1)!;
    assert.equal(last.bytes, last.totalBytes);
    assert.equal(last.files, 1);
    assert.ok(last.rate > 0);

    const back = join(fresh('back'), 'copy.bin');
    await files.download([join(remote, 'blob.bin')], back);
    assert.equal(sha(back), sha(src));
    assert.deepEqual(readdirSync(join(back, '..')), ['copy.bin']);
  });

  it('keeps several SFTP writes in flight during an upload (one at a time would cost a round trip per request)', async () => {
    const src = join(fresh('src'), 'pipelined.bin');
    writeFileSync(src, randomBytes(8 * 1024 * 1024));
    const original = SftpDataChannel.prototype.write;
    let inFlight = 0;
    let most = 0;
    SftpDataChannel.prototype.write = async function (this: SftpDataChannel, ...args: Parameters<typeof original>) {
      most = Math.max(most, ++inFlight);
      try {
        return await original.apply(this, args);
      } finally {
        inFlight--;
      }
    };
    try {
      const remote = fresh('remote');
      await files.upload([src], remote);
      assert.equal(sha(join(remote, 'pipelined.bin')), sha(src));
    } finally {
      SftpDataChannel.prototype.write = original;
    }
    assert.ok(most > 4, `at most ${most} writes were in flight`);
  });

  /** Records each data channel a copy opens on `conn`, and whether it has closed; `refuse` turns the n-th ask (from 1) away. */
  function watchDataChannels(refuse: (n: number) => boolean = () => false) {
    const original = conn.subsystem.bind(conn);
    const opened: { closed: boolean }[] = [];
    let asked = 0;
    let sftpOpened = 0;
    const originalSftp = conn.sftp.bind(conn);
    conn.sftp = async () => {
      sftpOpened++;
      return originalSftp();
    };
    conn.subsystem = async (name: string) => {
      if (refuse(++asked)) {
        const raw = Object.assign(new Error('(SSH) Channel open failure: open failed'), { reason: 1 });
        throw asChannelRefusal(new AppError('REMOTE_FAILED', `lab refused to open the sftp subsystem: ${raw.message}.`), raw);
      }
      const ch = await original(name);
      const seen = { closed: false };
      ch.once('close', () => (seen.closed = true));
      opened.push(seen);
      return ch;
    };
    return {
      opened,
      asked: () => asked,
      sftpOpened: () => sftpOpened,
      restore: () => {
        conn.subsystem = original;
        conn.sftp = originalSftp;
      },
    };
  }

  it('moves a large file over two data channels of the one connection, a small one over one, and closes them when done', async () => {
    const src = join(fresh('src'), 'large.bin');
    writeFileSync(src, randomBytes(40 * 1024 * 1024 + 77));
    const watch = watchDataChannels();
    try {
      const remote = fresh('remote');
      await files.upload([src], remote);
      assert.equal(sha(join(remote, 'large.bin')), sha(src));
      assert.equal(watch.opened.length, 2, 'two data channels for the upload');
      const back = join(fresh('back'), 'large.bin');
      await files.download([join(remote, 'large.bin')], back);
      assert.equal(sha(back), sha(src));
      assert.equal(watch.opened.length, 4, 'two more for the download');
      // A small file needs one.
      writeFileSync(join(remote, 'small.bin'), randomBytes(1024 * 1024));
      await files.download([join(remote, 'small.bin')], join(fresh('back'), 'small.bin'));
      assert.equal(watch.opened.length, 5);
      for (const deadline = Date.now() + 5000; watch.opened.some((o) => !o.closed) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(
        watch.opened.map((o) => o.closed),
        [true, true, true, true, true],
        'the data channels are closed after their copy',
      );
      assert.equal(watch.sftpOpened(), 0, "names and attributes stay on the session's SFTP channel");
    } finally {
      watch.restore();
    }
  });

  it('falls back to the channels the host allows when no other connection can be had: one data channel, or none (the SFTP channel carries the bytes)', async () => {
    // OpenSSH refuses channels past MaxSessions with "open failed"; here the refusal is the
    // connection's error for it, raised where it would be (a real MaxSessions: maxSessions.test.ts). A second
    // connection, which the copy would then open, fails as one needing a prompt would.
    const src = join(fresh('src'), 'large.bin');
    writeFileSync(src, randomBytes(24 * 1024 * 1024));
    const another = conn.another;
    let tried = 0;
    (conn as { another?: unknown }).another = () => {
      tried++;
      return Promise.reject(new Error('a login that would need a prompt'));
    };
    // After a refusal a copy asks this connection for no more channels (the host's MaxSessions is reached).
    try {
      for (const [what, refuse, used, asked] of [
        ['none allowed', () => true, 0, 2],
        ['the second refused', (n: number) => n % 2 === 0, 1, 4],
      ] as const) {
        const watch = watchDataChannels(refuse);
        try {
          const remote = fresh('remote');
          await files.upload([src], remote);
          assert.equal(sha(join(remote, 'large.bin')), sha(src), what);
          const back = join(fresh('back'), 'large.bin');
          await files.download([join(remote, 'large.bin')], back);
          assert.equal(sha(back), sha(src), what);
          assert.equal(watch.asked(), asked, `${what}: each copy asked for two channels, or one when the first was refused`);
          assert.equal(watch.opened.length, 2 * used, what);
          assert.equal(watch.sftpOpened(), 0, what);
        } finally {
          watch.restore();
        }
      }
    } finally {
      (conn as { another?: unknown }).another = another;
    }
    assert.equal(tried, 4, 'another connection tried once per copy, not once per channel');
  });

  it("a data channel takes OpenSSH's request limits (255 KiB) and reports its statuses with the path", async () => {
    const dc = await SftpDataChannel.open(conn, 'lab');
    try {
      assert.deepEqual([dc.maxRead, dc.maxWrite], [255 * 1024, 255 * 1024]);
      const missing = join(fresh('none'), 'missing.bin');
      await assert.rejects(dc.openFile(missing, 'r'), (e: Error & { code?: string }) => e.code === 'NOT_FOUND' && e.message.includes(`lab:${missing}`));
    } finally {
      dc.end();
    }
  });

  it('copies an empty file and a file the size of one request exactly', async () => {
    const s = fresh('src');
    writeFileSync(join(s, 'empty'), '');
    writeFileSync(join(s, 'one'), randomBytes(255 * 1024));
    const remote = fresh('remote');
    await files.upload([join(s, 'empty'), join(s, 'one')], remote);
    assert.equal(statSync(join(remote, 'empty')).size, 0);
    assert.equal(sha(join(remote, 'one')), sha(join(s, 'one')));
  });

  it('copies trees both ways (recursive), odd names included, and runs nothing in a shell', async () => {
    const s = fresh('tree');
    mkdirSync(join(s, 'top', 'sub dir', '深い'), { recursive: true });
    for (const name of ODD_NAMES) writeFileSync(join(s, 'top', name), `content of ${name}`);
    writeFileSync(join(s, 'top', 'sub dir', '深い', 'x.bin'), randomBytes(300_000));
    mkdirSync(join(s, 'top', 'empty dir'));
    const remote = fresh('remote');
    await files.upload([join(s, 'top')], remote, { recursive: true });
    assert.deepEqual(treeSums(join(remote, 'top')), treeSums(join(s, 'top')));
    assert.ok(existsSync(join(remote, 'top', 'empty dir')));
    // A destination that does not exist yet becomes the tree's new name (as scp does).
    const local = fresh('down');
    await files.download([join(remote, 'top')], join(local, 'renamed'), { recursive: true });
    assert.deepEqual(treeSums(join(local, 'renamed')), treeSums(join(s, 'top')));
    assert.ok(!existsSync(join(remote, 'PWNED')) && !existsSync(join(lab.host.dir, 'home', 'PWNED')));
  });

  it('preserves mode and times with preserve, and not without', async () => {
    const s = fresh('src');
    const f = join(s, 'script.sh');
    writeFileSync(f, '#!/bin/sh\necho hi\n');
    chmodSync(f, 0o751);
    utimesSync(f, 1_600_000_000, 1_500_000_000);
    const remote = fresh('remote');
    await files.upload([f], remote, { preserve: true });
    const r = statSync(join(remote, 'script.sh'));
    assert.equal(r.mode & 0o7777, 0o751);
    assert.equal(Math.floor(r.mtimeMs / 1000), 1_500_000_000);
    assert.equal(Math.floor(r.atimeMs / 1000), 1_600_000_000);
    const local = fresh('down');
    await files.download([join(remote, 'script.sh')], local, { preserve: true });
    const l = statSync(join(local, 'script.sh'));
    assert.equal(l.mode & 0o7777, 0o751);
    assert.equal(Math.floor(l.mtimeMs / 1000), 1_500_000_000);
    const plain = fresh('plain');
    await files.download([join(remote, 'script.sh')], plain);
    assert.notEqual(Math.floor(statSync(join(plain, 'script.sh')).mtimeMs / 1000), 1_500_000_000);
  });

  it('refuses a directory without recursive, a missing source, and several sources into a non-directory', async () => {
    const s = fresh('src');
    mkdirSync(join(s, 'd'));
    writeFileSync(join(s, 'a'), 'a');
    const remote = fresh('remote');
    await assert.rejects(
      files.upload([join(s, 'd')], remote),
      (e: { code: string; details: { reason: string } }) => e.code === 'INVALID_INPUT' && e.details.reason === 'isDirectory',
    );
    await assert.rejects(files.upload([join(s, 'nope')], remote), { code: 'NOT_FOUND' });
    await assert.rejects(files.download([join(remote, 'nope')], s), { code: 'NOT_FOUND' });
    await assert.rejects(
      files.upload([join(s, 'a'), join(s, 'a')], join(remote, 'not-a-dir')),
      (e: { code: string; details: { reason: string } }) => e.code === 'INVALID_INPUT' && e.details.reason === 'notDirectory',
    );
    assert.deepEqual(readdirSync(remote), []);
  });

  it('a cancelled copy leaves only the temporary name; resume continues it and skips what is already there', async () => {
    const src = join(fresh('src'), 'big.bin');
    writeFileSync(src, randomBytes(48 * 1024 * 1024));
    const remote = fresh('remote');
    const ac = new AbortController();
    // Small, few requests: slow enough to be cancelled part way.
    const up = files.upload([src], remote, {
      signal: ac.signal,
      chunkSize: 32 * 1024,
      concurrency: 2,
      onProgress: (p) => p.bytes > 8 * 1024 * 1024 && ac.abort(),
    });
    await assert.rejects(up, { code: 'CANCELLED' });
    const parts = readdirSync(remote);
    assert.equal(parts.length, 1, parts.join());
    assert.match(parts[0]!, /^\.big\.bin\.tagssh-part-[0-9a-f]{12}$/, 'a part name of its own, with a random suffix');
    const part = join(remote, parts[0]!);
    assert.ok(!existsSync(join(remote, 'big.bin')), 'the final name never holds a partial file');
    const partSize = statSync(part).size;
    assert.ok(partSize > 0 && partSize < statSync(src).size, `partial ${partSize}`);

    const resumed = await files.upload([src], remote, { resume: true });
    assert.equal(resumed.skippedBytes, partSize);
    assert.equal(sha(join(remote, 'big.bin')), sha(src));
    assert.ok(!existsSync(part));
    // Complete already: nothing is sent again.
    const again = await files.upload([src], remote, { resume: true });
    assert.equal(again.skippedBytes, statSync(src).size);
  });

  it('an upload never writes through a link planted at a part name; resume continues only a regular file', async () => {
    const src = join(fresh('src'), 'data.bin');
    writeFileSync(src, randomBytes(300_000));
    const remote = fresh('remote');
    const victim = join(fresh('victim'), 'authorized_keys');
    writeFileSync(victim, 'mine\n');
    // The names a part once had (and an attacker would guess): a link at each, to the victim.
    symlinkSync(victim, join(remote, '.data.bin.tagssh-part'));
    symlinkSync(victim, join(remote, '.data.bin.tagssh-part-000000000000'));
    for (const resume of [false, true]) {
      const r = await files.upload([src], remote, { resume });
      assert.equal(r.skippedBytes, 0, 'nothing was resumed from a link');
      assert.equal(sha(join(remote, 'data.bin')), sha(src));
      assert.equal(readFileSync(victim, 'utf8'), 'mine\n', `resume=${resume}: the link's target is untouched`);
      assert.deepEqual(readdirSync(remote).sort(), ['.data.bin.tagssh-part', '.data.bin.tagssh-part-000000000000', 'data.bin'], 'the links are left alone');
      rmSync(join(remote, 'data.bin'));
    }
    // A part that is a directory is not resumed either.
    rmSync(join(remote, '.data.bin.tagssh-part'));
    mkdirSync(join(remote, '.data.bin.tagssh-part'));
    assert.equal((await files.upload([src], remote, { resume: true })).skippedBytes, 0);
    assert.equal(sha(join(remote, 'data.bin')), sha(src));
  });

  it('resume of a download continues a good prefix and restarts from zero after a bad one', async () => {
    const remoteDir = fresh('remote');
    const src = join(remoteDir, 'data.bin');
    writeFileSync(src, randomBytes(3 * 1024 * 1024));
    const local = fresh('down');
    const part = partialNameFor(join(local, 'data.bin'), { dirname: (p) => join(p, '..'), basename: (p) => p.split('/').pop()!, join });
    writeFileSync(part, readFileSync(src).subarray(0, 1_000_000));
    const good = await files.download([src], local, { resume: true });
    assert.equal(good.skippedBytes, 1_000_000);
    assert.equal(sha(join(local, 'data.bin')), sha(src));

    rmSync(join(local, 'data.bin'));
    const corrupt = Buffer.from(readFileSync(src).subarray(0, 1_000_000));
    corrupt[500] = corrupt[500]! ^ 0xff;
    writeFileSync(part, corrupt);
    const bad = await files.download([src], local, { resume: true });
    assert.equal(bad.skippedBytes, 0);
    assert.equal(sha(join(local, 'data.bin')), sha(src));

    // A partial longer than the source cannot be its prefix either.
    rmSync(join(local, 'data.bin'));
    writeFileSync(part, randomBytes(4 * 1024 * 1024));
    truncateSync(part, 4 * 1024 * 1024);
    assert.equal((await files.download([src], local, { resume: true })).skippedBytes, 0);
    assert.equal(sha(join(local, 'data.bin')), sha(src));
  });
});

describe('FileSession browsing', () => {
  it('lists, makes directories, renames and deletes (refusing a non-empty directory unless recursive)', async () => {
    const root = fresh('browse');
    writeFileSync(join(root, 'b.txt'), 'bee');
    chmodSync(join(root, 'b.txt'), 0o640);
    mkdirSync(join(root, 'a dir'));
    await files.mkdir(join(root, 'x', 'y', 'z'), { parents: true });
    const list = await files.list(root);
    assert.deepEqual(
      list.map((e) => [e.name, e.type]),
      [
        ['a dir', 'dir'],
        ['x', 'dir'],
        ['b.txt', 'file'],
      ],
    );
    const b = list.find((e) => e.name === 'b.txt')!;
    assert.equal(b.size, 3);
    assert.equal(b.mode, 0o640);
    assert.ok(Math.abs(b.mtime - Date.now() / 1000) < 120);
    assert.equal(await files.realpath(join(root, 'x', '..', 'b.txt')), join(root, 'b.txt'));

    await files.rename(join(root, 'b.txt'), join(root, 'c.txt'));
    assert.equal(readFileSync(join(root, 'c.txt'), 'utf8'), 'bee');
    writeFileSync(join(root, 'd.txt'), 'dee');
    await assert.rejects(files.rename(join(root, 'c.txt'), join(root, 'd.txt')), { code: 'INVALID_INPUT' });
    await files.rename(join(root, 'c.txt'), join(root, 'd.txt'), { overwrite: true });
    assert.equal(readFileSync(join(root, 'd.txt'), 'utf8'), 'bee');

    await assert.rejects(files.remove(join(root, 'x')), { code: 'INVALID_INPUT' });
    assert.ok(existsSync(join(root, 'x', 'y', 'z')));
    await files.remove(join(root, 'x'), { recursive: true });
    await files.remove(join(root, 'a dir'));
    await files.remove(join(root, 'd.txt'));
    assert.deepEqual(readdirSync(root), []);
    await assert.rejects(files.list(join(root, 'gone')), { code: 'NOT_FOUND' });
  });
});
