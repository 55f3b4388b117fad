#!/usr/bin/env python3
"""A hostile SFTP version 3 server of the test lab's own, run by a real OpenSSH sshd as its
`Subsystem sftp` (so a client meets it exactly where it meets sftp-server).

Written from the SFTP v3 draft (draft-ietf-secsh-filexfer-02): packets are uint32 length, byte
type, then the fields; strings are uint32 length + bytes; ATTRS are flags + the fields they name.
It serves a read-only virtual tree described by a JSON file (the argument) and lies the way a
hostile server may: directory entries whose names are not one path component (`../x`, `a/../../x`,
`/abs`, `./..`, names with NUL or backslash), a directory whose READDIR never ends (a listing
bomb), and a directory that contains itself (as a directory and as a symlink). Writes are refused.

Spec (JSON):
  {"root": {"mode": 493, "mtime": 1700000000, "entries": [ENTRY, ...]}}
  ENTRY = {"name": "...", "type": "file", "content": "...", "mode": 420, "mtime": N}
        | {"name": "...", "type": "dir", "mode": 493, "mtime": N, "entries": [ENTRY, ...]}
        | {"name": "...", "type": "bomb"}   a directory whose listing never ends
        | {"name": "...", "type": "loop"}   a directory holding `again` (itself, as a directory)
                                            and `self` (a symlink to itself)
  "listed": false keeps an entry out of its directory's listing (it is still served by path).
  A name may hold any character; "\\u0000" in JSON is a NUL.
Every file whose entry is listed can be opened by the path the client builds from the directory
and the name, joined as given or normalised (a hostile server serves whatever it is asked for).
Optional env HOSTILE_SFTP_LOG: a file where each request's type and path is appended.
"""
import json
import os
import posixpath
import struct
import sys

INIT, VERSION = 1, 2
OPEN, CLOSE, READ, WRITE, LSTAT, FSTAT, SETSTAT, FSETSTAT = 3, 4, 5, 6, 7, 8, 9, 10
OPENDIR, READDIR, REMOVE, MKDIR, RMDIR, REALPATH, STAT, RENAME = 11, 12, 13, 14, 15, 16, 17, 18
READLINK, SYMLINK, EXTENDED = 19, 20, 200
STATUS, HANDLE, DATA, NAME, ATTRS = 101, 102, 103, 104, 105
OK, EOF, NO_SUCH_FILE, PERMISSION_DENIED, FAILURE, BAD_MESSAGE, OP_UNSUPPORTED = 0, 1, 2, 3, 4, 5, 8
A_SIZE, A_UIDGID, A_PERM, A_TIME = 0x1, 0x2, 0x4, 0x8
S_IFDIR, S_IFREG, S_IFLNK = 0o040000, 0o100000, 0o120000
BOMB_BATCH = 100

spec = json.load(open(sys.argv[1], encoding='utf-8'))
log_path = os.environ.get('HOSTILE_SFTP_LOG')
stdin = sys.stdin.buffer
stdout = sys.stdout.buffer


def log(what, path=b''):
    if log_path:
        with open(log_path, 'ab') as f:
            f.write(what.encode() + b' ' + path + b'\n')


class Node:
    def __init__(self, d, path):
        self.name = d.get('name', '')
        self.type = d.get('type', 'dir')
        self.path = path
        self.mode = d.get('mode', 0o644 if self.type == 'file' else 0o755)
        self.mtime = d.get('mtime', 1_700_000_000)
        self.content = d.get('content', '').encode('utf-8')
        self.children = []
        self.listed = d.get('listed', True)


files = {}  # every path a client may build for a node -> node


def build(d, path):
    node = Node(d, path)
    for e in d.get('entries', []):
        raw = path.rstrip(b'/') + b'/' + e['name'].encode('utf-8', 'surrogateescape')
        child = build(e, raw)
        node.children.append(child)
        files.setdefault(raw, child)
        files.setdefault(posixpath.normpath(raw), child)
    return node


root = build(spec['root'], b'/')
files[b'/'] = root


def lookup(path, follow=True):
    if path in (b'', b'.'):
        return root
    if not path.startswith(b'/'):
        path = b'/' + path
    if path in files:
        return files[path]
    norm = posixpath.normpath(path)
    if norm in files:
        return files[norm]
    # Anything under a loop directory is the loop directory itself (it contains itself).
    for p, n in files.items():
        if n.type == 'loop' and norm.startswith(p.rstrip(b'/') + b'/'):
            rest = norm[len(p):].strip(b'/').split(b'/')
            if not follow and rest[-1] == b'self':
                return ('link', n)
            return n
    return None


def u32(n):
    return struct.pack('>I', n)


def sstr(b):
    return u32(len(b)) + b


def attrs(node, link=False):
    if link:
        return u32(A_SIZE | A_PERM | A_TIME) + struct.pack('>Q', 1) + u32(S_IFLNK | 0o777) + u32(node.mtime) + u32(node.mtime)
    kind = S_IFREG if node.type == 'file' else S_IFDIR
    size = len(node.content) if node.type == 'file' else 4096
    return u32(A_SIZE | A_PERM | A_TIME) + struct.pack('>Q', size) + u32(kind | (node.mode & 0o7777)) + u32(node.mtime) + u32(node.mtime)


def send(t, body):
    stdout.write(u32(len(body) + 1) + bytes([t]) + body)
    stdout.flush()


def status(rid, code, msg=''):
    send(STATUS, u32(rid) + u32(code) + sstr(msg.encode()) + sstr(b''))


def read_exact(n):
    buf = b''
    while len(buf) < n:
        chunk = stdin.read(n - len(buf))
        if not chunk:
            sys.exit(0)
        buf += chunk
    return buf


class Reader:
    def __init__(self, b):
        self.b, self.p = b, 0

    def u32(self):
        v = struct.unpack_from('>I', self.b, self.p)[0]
        self.p += 4
        return v

    def u64(self):
        v = struct.unpack_from('>Q', self.b, self.p)[0]
        self.p += 8
        return v

    def str(self):
        n = self.u32()
        v = self.b[self.p:self.p + n]
        self.p += n
        return v


handles = {}
next_handle = [0]


def new_handle(v):
    next_handle[0] += 1
    h = b'h%d' % next_handle[0]
    handles[h] = v
    return h


def listing(node):
    """Directory entries as (name bytes, attrs bytes)."""
    if node.type == 'loop':
        return [(b'.', attrs(node)), (b'again', attrs(node)), (b'self', attrs(node, link=True))]
    out = [(b'.', attrs(node)), (b'..', attrs(root))]
    for c in node.children:
        if not c.listed:
            continue
        out.append((c.name.encode('utf-8', 'surrogateescape'), attrs(c)))
    return out


def names_reply(rid, entries):
    body = u32(rid) + u32(len(entries))
    for name, a in entries:
        body += sstr(name) + sstr(name) + a
    send(NAME, body)


def serve():
    while True:
        length = struct.unpack('>I', read_exact(4))[0]
        pkt = read_exact(length)
        t, r = pkt[0], Reader(pkt[1:])
        if t == INIT:
            r.u32()
            send(VERSION, u32(3))
            continue
        rid = r.u32()
        if t in (STAT, LSTAT):
            path = r.str()
            log('stat' if t == STAT else 'lstat', path)
            n = lookup(path, follow=(t == STAT))
            if isinstance(n, tuple):
                send(ATTRS, u32(rid) + attrs(n[1], link=True))
            elif n is None:
                status(rid, NO_SUCH_FILE, 'No such file')
            else:
                send(ATTRS, u32(rid) + attrs(n))
        elif t == FSTAT:
            h = handles.get(r.str())
            if not h:
                status(rid, FAILURE, 'bad handle')
            else:
                send(ATTRS, u32(rid) + attrs(h[1]))
        elif t == REALPATH:
            path = r.str()
            log('realpath', path)
            n = lookup(path)
            if isinstance(n, Node) and n.type == 'loop':
                out = n.path
            else:
                out = posixpath.normpath(path if path.startswith(b'/') else b'/' + path)
            send(NAME, u32(rid) + u32(1) + sstr(out) + sstr(out) + u32(0))
        elif t == OPENDIR:
            path = r.str()
            log('opendir', path)
            n = lookup(path)
            if isinstance(n, tuple):
                n = n[1]
            if n is None:
                status(rid, NO_SUCH_FILE, 'No such file')
            elif n.type == 'file':
                status(rid, FAILURE, 'Not a directory')
            else:
                send(HANDLE, u32(rid) + sstr(new_handle(['dir', n, 0, False])))
        elif t == READDIR:
            h = handles.get(r.str())
            if not h or h[0] != 'dir':
                status(rid, FAILURE, 'bad handle')
                continue
            node = h[1]
            if node.type == 'bomb':
                start = h[2]
                h[2] += BOMB_BATCH
                names_reply(rid, [(b'f%09d' % i, attrs(Node({'type': 'file'}, b''))) for i in range(start, start + BOMB_BATCH)])
            elif h[3]:
                status(rid, EOF, 'End of file')
            else:
                h[3] = True
                names_reply(rid, listing(node))
        elif t == OPEN:
            path = r.str()
            pflags = r.u32()
            log('open', path)
            n = lookup(path)
            if pflags & 0x2:  # WRITE: this server takes nothing
                status(rid, PERMISSION_DENIED, 'read-only')
            elif not isinstance(n, Node) or n.type != 'file':
                status(rid, NO_SUCH_FILE, 'No such file')
            else:
                send(HANDLE, u32(rid) + sstr(new_handle(['file', n])))
        elif t == READ:
            h = handles.get(r.str())
            off = r.u64()
            ln = r.u32()
            if not h or h[0] != 'file':
                status(rid, FAILURE, 'bad handle')
            elif off >= len(h[1].content):
                status(rid, EOF, 'End of file')
            else:
                send(DATA, u32(rid) + sstr(h[1].content[off:off + ln]))
        elif t == CLOSE:
            handles.pop(r.str(), None)
            status(rid, OK, 'Success')
        elif t in (WRITE, SETSTAT, FSETSTAT, REMOVE, MKDIR, RMDIR, RENAME, SYMLINK):
            status(rid, PERMISSION_DENIED, 'read-only')
        elif t == READLINK:
            path = r.str()
            send(NAME, u32(rid) + u32(1) + sstr(b'.') + sstr(b'.') + u32(0))
        else:
            status(rid, OP_UNSUPPORTED, 'Operation unsupported')


try:
    serve()
except (BrokenPipeError, KeyboardInterrupt):
    pass
