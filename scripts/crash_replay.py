#!/usr/bin/env python3
"""Crash replay: every state a power loss during one `wegman` run could
leave on disk, rebuilt from a system-call trace of that run, and the next
command run on each (scripts/crash-replay is the wrapper; docs/security.md,
"Power loss: the crash replay", has the figures).

How it works, per scenario:

1. In a fresh directory W, one run of the command is recorded with
   `strace -f -y -X raw -xx -s BIG`: every open (with its flags), write,
   pwrite64, writev, ftruncate, fsync, fdatasync, syncfs, rename, link,
   unlink, mkdir and close on a path inside W, with the full bytes written.
   The files of W before the run are the snapshot the replay starts from.
2. The power-loss model. A file's data written since its last fsync (or
   fdatasync) may be lost: in the rebuilt state the file holds its content
   as of its last sync (empty if never synced). A directory operation
   (create, link, rename, unlink, mkdir) is durable once its directory was
   fsynced after it; any subset of the others may be lost. The run is cut
   after each operation; at each cut every subset of the pending directory
   operations is applied to the snapshot, in order, the kept ones only (an
   operation whose source a dropped one would have made is dropped too),
   or, past 2^6 subsets, 64 subsets drawn with a fixed seed (counted as
   "sampled"). One more state per cut keeps everything (a `kill -9`: all
   data and names as the process left them).
3. Each distinct state is written out and the next commands are run on it:
   (i)   no nonce reused: `wegman tag` (for a CWC key, `seal cwc` again) on
         fresh content must not print a nonce that the recorded run had
         printed or written anywhere before the cut (its manifest lines, a
         state file, the sealed header: byte 19, 11 bytes);
   (ii)  no state lies: for every kept state in st/ whose line is in a
         manifest we have, `wegman patch` must refuse (exit 2) or print a
         manifest that `wegman check` passes;
   (iii) no output lies: `out.sealed` is absent or opens to the exact
         input; a patched file is its old content (and the old manifest
         checks) or its new one (and the new manifest, if whole, checks).
   (iv)  no power loss bricks a key: the next `tag` (`seal cwc`) runs; a
         refusal there means the store a power loss left cannot be used
         without repair (a store that skipped an fsync of its own files
         leaves such states: a generation file linked before its bytes
         were durable, read back empty).
   Any other command may refuse with exit 2 (counted); any other status —
   a panic (101), a signal — is a violation.

Negative controls: the shipped code carries no planted bug; instead the
recorded trace is edited to be that of a buggy writer, and the harness
must find the lie. With --break the exit status is 0 only if it does.
  --break rename-before-fsync: the first seal's trace loses the fsync of
      the staging file before its rename (a writer that forgot it); the
      harness must find `out.sealed` under its final name but empty (its
      data lost, the rename kept), which `open` refuses: check (iii).
  --break store-dir-fsync: the tag runs' traces lose every fsync of the
      key's directory (a nonce store that hands out nonces before the
      generation it linked is durable); the harness must find a state
      whose store went back to an older generation, so that the next
      `tag` prints a nonce the run had already printed: check (i).

Standard library only (Python 3.9+). Exit status 1 on any violation, or if
strace cannot trace here (it never passes without tracing).
"""

import argparse
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

SUBSET_CAP_LOG2 = 6
SUBSET_SAMPLES = 64
SEED = 20261128

O_ACCMODE = 0o3
O_CREAT = 0o100
O_EXCL = 0o200
O_TRUNC = 0o1000
O_APPEND = 0o2000
AT_REMOVEDIR = 0x200
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2

TRACED = ("openat,open,creat,write,pwrite64,writev,pwritev,pwritev2,ftruncate,truncate,"
          "fsync,fdatasync,syncfs,sync,rename,renameat,renameat2,link,linkat,unlink,unlinkat,"
          "mkdir,mkdirat,rmdir,close,dup,dup2,dup3,lseek,copy_file_range,sendfile,fallocate")
UNSUPPORTED = {"copy_file_range", "sendfile", "fallocate", "truncate", "pwritev", "pwritev2"}

MANIFEST_LINE = re.compile(r"^POLY1305-AES/2 \((.*)\) nonce=([0-9a-f]{32}) = ([0-9a-f]{32})$")
NONCE_FIELD = re.compile(r"nonce=([0-9a-f]{32})")


class HarnessError(Exception):
    pass


# ---------------------------------------------------------------- the trace

HEXSTR = r'"((?:\\x[0-9a-f]{2})*)"'
FD = r"(-?\d+)(?:<((?:\\x[0-9a-f]{2})*)(?: \(deleted\))?>)?"
LINE = re.compile(r"^(\d+) +(.*)$")
CALL = re.compile(r"^([a-z0-9_]+)\((.*)\) += (-?\d+|\?)(?:<((?:\\x[0-9a-f]{2})*)(?: \(deleted\))?>)?(.*)$")


def unhex(s):
    return bytes.fromhex(s.replace("\\x", "")) if s else b""


def split_args(s):
    """Top-level comma-separated arguments (strings are all \\xNN: no quotes
    or commas inside them)."""
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "[{<":
            depth += 1
        elif ch in "]}>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur).strip())
    return out


def parse_fd(a):
    m = re.fullmatch(FD, a)
    if not m:
        raise HarnessError(f"cannot parse fd argument {a!r}")
    return int(m.group(1)), (unhex(m.group(2)).decode("utf-8", "surrogateescape") if m.group(2) is not None else None)


def parse_str(a):
    m = re.fullmatch(HEXSTR + r"(\.\.\.)?", a)
    if not m:
        raise HarnessError(f"cannot parse string argument {a!r}")
    if m.group(2):
        raise HarnessError("strace cut a buffer short (raise -s)")
    return unhex(m.group(1))


def parse_int(a):
    a = a.strip()
    return int(a, 16) if a.startswith("0x") else int(a, 8) if a.startswith("0") and len(a) > 1 else int(a)


def read_trace(path):
    """The completed system calls of a `strace -f -y -X raw -xx` log, in the
    order they returned, as (name, args, ret, ret_path)."""
    pending = {}
    calls = []
    with open(path, encoding="ascii", errors="replace") as f:
        for raw in f:
            raw = raw.rstrip("\n")
            m = LINE.match(raw)
            if not m:
                continue
            pid, rest = m.group(1), m.group(2)
            if rest.endswith("<unfinished ...>"):
                pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
                continue
            r = re.match(r"^<\.\.\. ([a-z0-9_]+) resumed>(.*)$", rest)
            if r:
                start = pending.pop(pid, None)
                if start is None:
                    raise HarnessError(f"a resumed call with no start: {raw[:200]}")
                rest = start + r.group(2)
            if rest.startswith("+++") or rest.startswith("---"):
                continue
            c = CALL.match(rest)
            if not c:
                raise HarnessError(f"cannot parse trace line: {raw[:200]}")
            name, args, ret, rpath = c.group(1), c.group(2), c.group(3), c.group(4)
            if ret == "?":
                continue  # the process exited inside the call
            calls.append((name, split_args(args), int(ret),
                          unhex(rpath).decode("utf-8", "surrogateescape") if rpath is not None else None))
    return calls


# ------------------------------------------------------------ the file model


class Op:
    """One event of the run that the replay can cut after."""

    __slots__ = ("kind", "a", "b", "ino", "data", "dirs", "durable_at", "index", "payload")

    def __init__(self, kind, a=None, b=None, ino=None, data=None):
        self.kind, self.a, self.b, self.ino, self.data = kind, a, b, ino, data
        self.dirs = ()
        self.durable_at = None
        self.index = None
        self.payload = b""  # bytes written (for finding printed nonces)


def parent(p):
    return os.path.dirname(p)


class Recording:
    """The events of one run on the files of W, and the states they leave."""

    def __init__(self, root, snapshot):
        self.root = root
        self.pre_names = {}  # path -> ino, or "dir"
        self.pre_content = {}  # ino -> bytes
        for path, val in snapshot.items():
            if val is None:
                self.pre_names[path] = "dir"
            else:
                ino = len(self.pre_content)
                self.pre_content[ino] = val
                self.pre_names[path] = ino
        self.pre_names[""] = "dir"  # W itself
        self.next_ino = len(self.pre_content)
        self.ops = []

    def rel(self, p):
        if p is None:
            return None
        p = os.path.normpath(p)
        if p == self.root:
            return ""
        if p.startswith(self.root + "/"):
            return p[len(self.root) + 1:]
        return None

    def build(self, calls):
        """Turn the trace into ops, tracking names, fds and offsets."""
        names = dict(self.pre_names)
        fds = {}  # fd -> [ino or "dir", path, offset-cell]
        cwd = self.root

        def resolve(dirfd_arg, path_bytes):
            p = path_bytes.decode("utf-8", "surrogateescape")
            if os.path.isabs(p):
                return self.rel(p)
            base = cwd
            if dirfd_arg is not None:
                fd, fpath = parse_fd(dirfd_arg)
                if fd != -100:
                    base = fpath
            return self.rel(os.path.join(base, p))

        def fd_target(arg):
            fd, fpath = parse_fd(arg)
            if fd in fds:
                return fds[fd]
            rp = self.rel(fpath)
            if rp is not None and rp in names:
                ent = [names[rp], rp, [0]]
                fds[fd] = ent
                return ent
            return None

        def dirop(op, *dirs):
            op.dirs = tuple(sorted(set(dirs)))
            self.ops.append(op)

        for name, args, ret, rpath in calls:
            if ret < 0 and name not in ("close",):
                continue
            if name in UNSUPPORTED:
                # only an error if it touched W
                touched = [a for a in args if "<" in a and self.rel(parse_fd(a)[1]) is not None]
                if touched:
                    raise HarnessError(f"{name} on a file of the work directory: the model does not cover it")
                continue
            if name in ("open", "openat", "creat"):
                if name == "openat":
                    path = resolve(args[0], parse_str(args[1]))
                    flags = parse_int(args[2])
                elif name == "open":
                    path = resolve(None, parse_str(args[0]))
                    flags = parse_int(args[1])
                else:
                    path = resolve(None, parse_str(args[0]))
                    flags = O_CREAT | O_TRUNC | 1
                real = self.rel(rpath)
                if real is not None:
                    path = real
                if path is None:
                    fds.pop(ret, None)
                    continue
                if path in names:
                    ino = names[path]
                    if ino != "dir" and flags & O_TRUNC and flags & O_ACCMODE:
                        self.ops.append(Op("trunc", ino=ino, data=0))
                else:
                    if not flags & O_CREAT:
                        raise HarnessError(f"opened {path}, which the model does not know")
                    ino = self.next_ino
                    self.next_ino += 1
                    names[path] = ino
                    dirop(Op("create", a=path, ino=ino), parent(path))
                fds[ret] = [ino, path, [None if flags & O_APPEND else 0]]
            elif name in ("dup", "dup2", "dup3"):
                ent = fd_target(args[0])
                if ent is not None:
                    fds[ret] = ent
                else:
                    fds.pop(ret, None)
            elif name == "lseek":
                ent = fd_target(args[0])
                if ent is not None and ent[2][0] is not None:
                    ent[2][0] = ret
            elif name == "close":
                fd, _ = parse_fd(args[0])
                fds.pop(fd, None)
            elif name in ("write", "pwrite64", "writev"):
                ent = fd_target(args[0])
                if ent is None or ent[0] == "dir":
                    continue
                if name == "writev":
                    data = b"".join(unhex(s) for s in re.findall(r'iov_base=' + HEXSTR, args[1]))
                else:
                    data = parse_str(args[1])
                data = data[:ret]
                if name == "pwrite64":
                    off = parse_int(args[3])
                else:
                    off = ent[2][0]  # None: O_APPEND, at the end
                    if off is not None:
                        ent[2][0] += len(data)
                op = Op("write", ino=ent[0], a=off, data=data)
                op.payload = data
                op.b = ent[1]
                self.ops.append(op)
            elif name == "ftruncate":
                ent = fd_target(args[0])
                if ent is not None and ent[0] != "dir":
                    self.ops.append(Op("trunc", ino=ent[0], data=parse_int(args[1])))
            elif name in ("fsync", "fdatasync"):
                ent = fd_target(args[0])
                if ent is None:
                    continue
                if ent[0] == "dir":
                    self.ops.append(Op("dirsync", a=ent[1]))
                else:
                    self.ops.append(Op("fsync", ino=ent[0], a=ent[1]))
            elif name in ("syncfs", "sync"):
                self.ops.append(Op("syncall"))
            elif name in ("rename", "renameat", "renameat2"):
                if name == "rename":
                    src, dst, flags = resolve(None, parse_str(args[0])), resolve(None, parse_str(args[1])), 0
                else:
                    src, dst = resolve(args[0], parse_str(args[1])), resolve(args[2], parse_str(args[3]))
                    flags = parse_int(args[4]) if name == "renameat2" else 0
                if src is None or dst is None:
                    continue
                if flags & RENAME_EXCHANGE:
                    raise HarnessError("renameat2(RENAME_EXCHANGE) is not modelled")
                names[dst] = names.pop(src)
                dirop(Op("rename", a=src, b=dst, ino=names[dst]), parent(src), parent(dst))
            elif name in ("link", "linkat"):
                if name == "link":
                    src, dst = resolve(None, parse_str(args[0])), resolve(None, parse_str(args[1]))
                else:
                    src, dst = resolve(args[0], parse_str(args[1])), resolve(args[2], parse_str(args[3]))
                if src is None or dst is None:
                    continue
                names[dst] = names[src]
                dirop(Op("link", a=src, b=dst, ino=names[src]), parent(dst))
            elif name in ("unlink", "unlinkat", "rmdir"):
                if name == "unlinkat":
                    path = resolve(args[0], parse_str(args[1]))
                else:
                    path = resolve(None, parse_str(args[0]))
                if path is None:
                    continue
                names.pop(path, None)
                dirop(Op("unlink", a=path), parent(path))
            elif name in ("mkdir", "mkdirat"):
                path = resolve(args[0], parse_str(args[1])) if name == "mkdirat" else resolve(None, parse_str(args[0]))
                if path is None:
                    continue
                names[path] = "dir"
                dirop(Op("mkdir", a=path), parent(path))
        self.final_names = names
        self.number()

    def number(self):
        """Index the ops, and find when each directory operation becomes
        durable: at the first fsync, after it, of every directory it touches."""
        for i, op in enumerate(self.ops):
            op.index = i
        for i, op in enumerate(self.ops):
            if not op.dirs:
                continue
            done = []
            for d in op.dirs:
                done.append(next((j for j in range(i + 1, len(self.ops))
                                  if (self.ops[j].kind == "dirsync" and self.ops[j].a == d)
                                  or self.ops[j].kind == "syncall"), None))
            op.durable_at = None if None in done else max(done)

    def drop_fsync_before_rename(self, pattern):
        """The negative control: drop the last fsync of the file renamed to a
        name matching `pattern` before that rename."""
        for op in self.ops:
            if op.kind == "rename" and re.search(pattern, op.b):
                syncs = [o for o in self.ops[: op.index] if o.kind == "fsync" and o.ino == op.ino]
                if not syncs:
                    raise HarnessError("control: no fsync before the rename to drop")
                self.ops.remove(syncs[-1])
                self.number()
                return syncs[-1]
        raise HarnessError(f"control: no rename to a name matching {pattern}")

    def drop_dirsyncs(self, d):
        """The second control: drop every fsync of the directory `d` (a
        store that hands out nonces before its reservation is durable)."""
        gone = [o for o in self.ops if o.kind == "dirsync" and o.a == d]
        if not gone:
            raise HarnessError(f"control: no fsync of the directory {d!r} to drop")
        self.ops = [o for o in self.ops if o not in gone]
        self.number()
        return len(gone)

    def contents_at(self, cut):
        """Per inode: (synced content, current content) after ops[:cut]."""
        cur = {i: bytearray(c) for i, c in self.pre_content.items()}
        dur = {i: bytes(c) for i, c in self.pre_content.items()}
        for op in self.ops[:cut]:
            if op.kind == "create":
                cur[op.ino] = bytearray()
                dur[op.ino] = b""
            elif op.kind == "write":
                b = cur[op.ino]
                if op.a is None:
                    b.extend(op.data)
                    continue
                if len(b) < op.a:
                    b.extend(b"\0" * (op.a - len(b)))
                b[op.a:op.a + len(op.data)] = op.data
            elif op.kind == "trunc":
                b = cur[op.ino]
                if len(b) > op.data:
                    del b[op.data:]
                else:
                    b.extend(b"\0" * (op.data - len(b)))
            elif op.kind == "fsync":
                dur[op.ino] = bytes(cur[op.ino])
            elif op.kind == "syncall":
                dur = {i: bytes(c) for i, c in cur.items()}
        return dur, {i: bytes(c) for i, c in cur.items()}

    def names_with(self, cut, keep):
        """The names after ops[:cut], with the durable directory operations
        and the pending ones in `keep` applied in order; an operation whose
        source is missing (a dropped one would have made it) is dropped."""
        names = dict(self.pre_names)
        for op in self.ops[:cut]:
            if not op.dirs:
                continue
            if not (op.durable_at is not None and op.durable_at < cut) and op.index not in keep:
                continue
            if any(d and names.get(d) != "dir" for d in op.dirs):
                continue
            if op.kind == "create":
                names[op.a] = op.ino
            elif op.kind == "mkdir":
                names[op.a] = "dir"
            elif op.kind == "link":
                if names.get(op.a) == op.ino and op.b not in names:
                    names[op.b] = op.ino
            elif op.kind == "rename":
                if names.get(op.a) == op.ino:
                    names[op.b] = names.pop(op.a)
            elif op.kind == "unlink":
                names.pop(op.a, None)
        return names

    def pending_at(self, cut):
        return [op.index for op in self.ops[:cut]
                if op.dirs and not (op.durable_at is not None and op.durable_at < cut)]


def snapshot(root):
    """path -> bytes for files, None for directories (relative to root)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rd = os.path.relpath(dirpath, root)
        if rd != ".":
            out[rd] = None
        for f in filenames:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.normpath(os.path.join(rd, f))] = fh.read()
    return out


def state_of(names, contents):
    st = {}
    for path, ino in names.items():
        if path == "":
            continue
        st[path] = None if ino == "dir" else contents[ino]
    return st


def state_key(st):
    h = hashlib.sha256()
    for p in sorted(st):
        h.update(p.encode("utf-8", "surrogateescape") + b"\0")
        h.update(b"D" if st[p] is None else b"F" + hashlib.sha256(st[p]).digest())
    return h.hexdigest()


def materialize(st, into):
    if os.path.exists(into):
        shutil.rmtree(into)
    os.makedirs(into)
    for p in sorted(st, key=lambda q: q.count("/")):
        full = os.path.join(into, p)
        if st[p] is None:
            os.makedirs(full, exist_ok=True)
    for p, data in st.items():
        if data is not None:
            full = os.path.join(into, p)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)


# ---------------------------------------------------------------- the runs


def run(argv, cwd, stdin=None):
    p = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def complete_manifest(data):
    """The text of a whole manifest (every line parses, the last is the
    seal), or None."""
    if not data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    if lines[-1] != "" or len(lines) < 3:
        return None
    body = lines[:-1]
    if not body[-1].startswith("POLY1305-AES/2 MANIFEST "):
        return None
    if not all(MANIFEST_LINE.match(x) for x in body[:-1]):
        return None
    return text


class Scenario:
    def __init__(self, label, kind, shell, stdout=None, source=None):
        self.label, self.kind, self.shell, self.stdout, self.source = label, kind, shell, stdout, source
        self.pre_used = set()  # nonces printed or written before the run (hex)
        self.manifests = []  # whole manifests a user may hold (text)
        self.counts = dict(ops=0, cuts=0, sampled_cuts=0, states=0, distinct=0, replayed=0,
                           next_ok=0, next_refused=0, patch_ok=0, patch_refused=0, states_checked=0,
                           outputs_absent=0, outputs_whole=0, outputs_previous=0, data_old=0, data_new=0)
        self.violations = []


def record(sc, wegman, work, traces):
    pre = snapshot(work)
    trace = os.path.join(traces, re.sub(r"[^a-z0-9]+", "-", sc.label) + ".trace")
    argv = ["strace", "-f", "-qq", "-y", "-X", "raw", "-xx", "-s", str(1 << 22), "-o", trace,
            "-e", "trace=" + TRACED, "sh", "-c", sc.shell.replace("WEGMAN", wegman)]
    rc, _, err = run(argv, work)
    if rc != 0:
        raise HarnessError(f"{sc.label}: the recorded run failed (exit {rc}): {err.decode(errors='replace')[-2000:]}")
    if not os.path.exists(trace) or os.path.getsize(trace) == 0:
        raise HarnessError(f"{sc.label}: strace wrote no trace: is it tracing?")
    rec = Recording(os.path.realpath(work), pre)
    rec.build(read_trace(trace))
    post = snapshot(work)
    # The model must end where the real run ended: else it missed something.
    n = len(rec.ops)
    _, cur = rec.contents_at(n)
    modelled = state_of(rec.names_with(n, set(rec.pending_at(n))), cur)
    if state_key(modelled) != state_key(post):
        diff = sorted(set(modelled) ^ set(post)) or [p for p in post if modelled.get(p) != post[p]]
        raise HarnessError(f"{sc.label}: the model of the trace does not end in the real final state ({diff[:5]})")
    if not any(o.kind in ("fsync", "dirsync") for o in rec.ops):
        raise HarnessError(f"{sc.label}: no fsync in the trace: is strace tracing?")
    return rec, pre, post


def used_at(rec, nonces, raw_len):
    """For each nonce (hex), the index of the first write, to a file other
    than a nonce store's, whose bytes hold it (hex or raw)."""
    out = {}
    for nh in nonces:
        raw = bytes.fromhex(nh)[:raw_len]
        for op in rec.ops:
            if op.kind == "write" and ".nonce" not in os.path.basename(op.b or "") and (
                    nh.encode() in op.payload or raw in op.payload):
                out[nh] = op.index
                break
    return out


def states_of(rec, sc, rng):
    """distinct state key -> (state, highest cut that leaves it)."""
    distinct = {}
    n = len(rec.ops)
    sc.counts["ops"] = n
    sc.counts["cuts"] = n + 1

    def add(st, cut):
        sc.counts["states"] += 1
        k = state_key(st)
        if k in distinct:
            distinct[k] = (distinct[k][0], max(distinct[k][1], cut))
        else:
            distinct[k] = (st, cut)

    for cut in range(n + 1):
        dur, cur = rec.contents_at(cut)
        pending = rec.pending_at(cut)
        if len(pending) > SUBSET_CAP_LOG2:
            sc.counts["sampled_cuts"] += 1
            subsets = [set(), set(pending)]
            while len(subsets) < SUBSET_SAMPLES:
                subsets.append({p for p in pending if rng.random() < 0.5})
        else:
            subsets = []
            for mask in range(1 << len(pending)):
                subsets.append({p for b, p in enumerate(pending) if mask >> b & 1})
        for keep in subsets:
            add(state_of(rec.names_with(cut, keep), dur), cut)
        add(state_of(rec.names_with(cut, set(pending)), cur), cut)  # kill -9
    sc.counts["distinct"] = len(distinct)
    return distinct


class Checker:
    def __init__(self, wegman, sc, used_by_cut, inputs, verbose=False):
        self.w, self.sc, self.used_by_cut, self.inputs = wegman, sc, used_by_cut, inputs
        self.verbose = verbose

    def note(self, cut, what):
        if self.verbose:
            print(f"   [{self.sc.label}] cut {cut}: {what}")

    def violation(self, cut, what):
        self.sc.violations.append(f"[{self.sc.label}] cut {cut}: {what}")

    def status(self, rc, what, cut):
        """True for exit 0, False for a refusal (exit 2); else a violation."""
        if rc == 0:
            return True
        if rc != 2:
            self.violation(cut, f"{what} exited {rc} (a crash or an unexplained status, not a refusal)")
        return False

    def check_manifest(self, d, text, what, cut, only=None):
        """`wegman check` must pass the manifest; with `only`, its seal and
        that file's line (another line may be of a file the recorded run
        changed behind this manifest's back: not this command's doing)."""
        path = os.path.join(d, ".replay-check")
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = run([self.w, "check", "-k", "key", ".replay-check"], d)
        if rc != 0 and only is not None:
            if f"{only}: OK" in out.decode(errors="replace").split("\n") and b"does NOT verify" not in err:
                rc = 0
        if rc != 0:
            self.violation(cut, f"{what}: `wegman check` exit {rc}: {(out + err).decode(errors='replace').strip()}")
        return rc == 0

    def reused(self, nonces, cut, what):
        used = self.used_by_cut(cut)
        for nh in nonces:
            if nh in used:
                self.violation(cut, f"{what} used nonce {nh}, already printed or written before the cut")

    def __call__(self, item, d):
        st, cut = item
        sc, c = self.sc, self.sc.counts
        materialize(st, d)
        # (iii) no output lies
        if sc.kind == "seal":
            if "out.sealed" in st and st["out.sealed"] == self.inputs.get("old_sealed"):
                c["outputs_previous"] += 1  # the previous run's whole output, not replaced yet
            elif "out.sealed" in st:
                rc, out, err = run([self.w, "open", "cwc", "--key-file", "ckey", "-o", "-", "out.sealed"], d)
                if rc != 0 or out != self.inputs[sc.source]:
                    self.violation(cut, f"out.sealed exists ({len(st['out.sealed'])} bytes) but does not open to "
                                        f"the input: open exit {rc}: {err.decode(errors='replace').strip()}")
                else:
                    c["outputs_whole"] += 1
            else:
                c["outputs_absent"] += 1
        elif sc.kind == "patch":
            f1 = st.get("f1")
            if f1 == self.inputs["f1_old"]:
                c["data_old"] += 1
                self.check_manifest(d, self.inputs["m_old"], "f1 holds its old content, the old manifest", cut)
            elif f1 == self.inputs["f1_new"]:
                c["data_new"] += 1
                m2 = complete_manifest(st.get("m2"))
                if m2:
                    self.check_manifest(d, m2, "f1 holds its new content, the new manifest m2", cut)
            else:
                self.violation(cut, "f1 is neither its old content nor its new one")
        if sc.kind in ("tag", "patch"):
            m = complete_manifest(st.get(sc.stdout))
            if m:
                self.check_manifest(d, m, f"the whole manifest {sc.stdout} left on disk", cut)
        # (i) no nonce reused
        fresh = os.urandom(24).hex()
        if sc.kind == "seal":
            with open(os.path.join(d, "fresh.in"), "w") as f:
                f.write(fresh)
            rc, _, err = run([self.w, "seal", "cwc", "--key-file", "ckey", "-o", "fresh.sealed", "fresh.in"], d)
            if self.status(rc, "the next `seal cwc`", cut):
                c["next_ok"] += 1
                with open(os.path.join(d, "fresh.sealed"), "rb") as f:
                    head = f.read(30)
                self.reused([head[19:30].hex()], cut, "the next seal")
            else:
                c["next_refused"] += 1
                self.violation(cut, f"the next seal refused: {err.decode(errors='replace').strip()}")
            return
        with open(os.path.join(d, "fresh"), "w") as f:
            f.write(fresh)
        rc, out, err = run([self.w, "tag", "-k", "key", "fresh"], d)
        if self.status(rc, "the next `tag`", cut):
            c["next_ok"] += 1
            self.reused(NONCE_FIELD.findall(out.decode()), cut, "the next tag")
        else:
            c["next_refused"] += 1
            self.violation(cut, f"the next tag refused: {err.decode(errors='replace').strip()}")
        # (ii) no state lies
        # The manifests a user may hold: earlier runs', this run's whole
        # output (printed to a terminal, say, before the power went), and
        # what this state's disk has.
        texts = list(sc.manifests)
        for m in (self.inputs["printed"], complete_manifest(st.get(sc.stdout))):
            if m and m not in texts:
                texts.append(m)
        for p in sorted(st):
            if not (p.startswith("st/") and p.endswith(".state")) or st[p] is None:
                continue
            head = st[p][:40]
            if len(head) < 40:
                continue
            nh, th = head[8:24].hex(), head[24:40].hex()
            for text in texts:
                names = [mm.group(1) for mm in map(MANIFEST_LINE.match, text.split("\n"))
                         if mm and mm.group(2) == nh and mm.group(3) == th]
                if not names:
                    continue
                c["states_checked"] += 1
                d2 = d + ".patch"
                if os.path.exists(d2):
                    shutil.rmtree(d2)
                shutil.copytree(d, d2, symlinks=True)
                with open(os.path.join(d2, ".replay-manifest"), "w") as f:
                    f.write(text)
                rc, out, err = run([self.w, "patch", "-k", "key", "--state", "st", "--manifest", ".replay-manifest",
                                    "--offset", "7", "--data-hex", os.urandom(3).hex(), names[0]], d2)
                if self.status(rc, f"`patch {names[0]}` from its kept state", cut):
                    c["patch_ok"] += 1
                    # its new nonces: the patched line's and the seal's
                    new = set(NONCE_FIELD.findall(out.decode())) - set(NONCE_FIELD.findall(text))
                    self.reused(sorted(new), cut, "the patch")
                    self.check_manifest(d2, out.decode(), f"the manifest `patch {names[0]}` printed", cut,
                                        only=names[0])
                else:
                    c["patch_refused"] += 1
                    self.note(cut, f"`patch {names[0]}` refused: {err.decode(errors='replace').strip()}")
                shutil.rmtree(d2)


def replay(sc, rec, wegman, scratch, inputs, cap, rng, verbose=False):
    final_out = rec.final_names
    # The nonces this run printed or wrote, and when.
    if sc.kind == "seal":
        with open(os.path.join(inputs["work"], "out.sealed"), "rb") as f:
            nonces = [f.read(30)[19:30].hex()]
        first = used_at(rec, nonces, 11)
    else:
        with open(os.path.join(inputs["work"], sc.stdout)) as f:
            nonces = NONCE_FIELD.findall(f.read())
        first = used_at(rec, nonces, 16)
    missing = [n for n in nonces if n not in first]
    if missing:
        raise HarnessError(f"{sc.label}: nonces of the output not found in any write of the trace: {missing}")
    sc.run_nonces = nonces
    if sc.kind != "seal":
        with open(os.path.join(inputs["work"], sc.stdout), "rb") as f:
            inputs["printed"] = complete_manifest(f.read())

    def used_by_cut(cut):
        return sc.pre_used | {n for n, i in first.items() if i < cut}

    distinct = states_of(rec, sc, rng)
    items = list(distinct.values())
    if len(items) > cap:
        items.sort(key=lambda x: x[1])
        keep = rng.sample(range(len(items)), cap)
        items = [items[i] for i in sorted(keep)]
    sc.counts["replayed"] = len(items)
    checker = Checker(wegman, sc, used_by_cut, inputs, verbose)
    for i, item in enumerate(items):
        checker(item, os.path.join(scratch, f"{sc.label}-{i}"))
        shutil.rmtree(os.path.join(scratch, f"{sc.label}-{i}"))
    del final_out


def report(sc, seconds):
    c = sc.counts
    sampled = f", {c['sampled_cuts']} of them sampled (64 of the subsets)" if c["sampled_cuts"] else ""
    capped = f" (capped at {c['replayed']})" if c["replayed"] < c["distinct"] else ""
    print(f"== {sc.label}: {c['ops']} operations recorded, {c['cuts']} cut points{sampled}")
    print(f"   {c['states']} states rebuilt, {c['distinct']} distinct, {c['replayed']} replayed{capped}")
    line = f"   next command: {c['next_ok']} ok, {c['next_refused']} refused (exit 2)"
    if sc.kind != "seal":
        line += (f"; kept states patched: {c['states_checked']} "
                 f"({c['patch_ok']} ok and checked, {c['patch_refused']} refused)")
    print(line)
    if sc.kind == "seal":
        prev = f", the previous run's whole file {c['outputs_previous']}" if c["outputs_previous"] else ""
        print(f"   out.sealed: absent {c['outputs_absent']}, whole and opens to the input {c['outputs_whole']}{prev}")
    if sc.kind == "patch":
        print(f"   f1: old content {c['data_old']}, new content {c['data_new']}")
    print(f"   violations: {len(sc.violations)}   ({seconds:.1f} s)")
    for v in sc.violations[:10]:
        print("   VIOLATION " + v)
    if len(sc.violations) > 10:
        print(f"   … and {len(sc.violations) - 10} more")


def check_strace(work):
    try:
        rc, _, err = run(["strace", "-f", "-qq", "-o", os.devnull, "-e", "trace=fsync", "true"], work)
    except FileNotFoundError:
        raise HarnessError("strace is not installed (scripts/install-deps installs it)")
    if rc != 0:
        raise HarnessError(f"strace cannot trace here (exit {rc}): {err.decode(errors='replace').strip()} "
                           "— ptrace is needed (a container may need --cap-add SYS_PTRACE)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wegman", required=True, help="the wegman binary")
    ap.add_argument("--break", dest="brk", choices=["rename-before-fsync", "store-dir-fsync"],
                    help="negative control: edit the recorded trace (see the header); exit 0 only if a "
                         "violation is found")
    ap.add_argument("--cap", type=int, help="distinct states replayed per scenario (default 120; with --break, 30: "
                                            "a control only has to be caught)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--show-ops", action="store_true", help="print each scenario's recorded operations")
    ap.add_argument("--verbose", action="store_true", help="print every refusal (exit 2) with its message")
    a = ap.parse_args()
    if a.cap is None:
        a.cap = 30 if a.brk else 120
    wegman = os.path.realpath(a.wegman)
    t0 = time.time()
    rng = random.Random(SEED)
    top = tempfile.mkdtemp(prefix="wegman-crash-replay.")
    work, traces, scratch = (os.path.join(top, x) for x in ("w", "traces", "scratch"))
    for x in (work, traces, scratch):
        os.makedirs(x)
    total = 0
    try:
        check_strace(top)
        for argv in (["keygen", "-o", "key"], ["keygen", "--alg", "cwc-aes-128", "-o", "ckey"]):
            rc, _, err = run([wegman] + argv, work)
            if rc != 0:
                raise HarnessError(f"wegman {' '.join(argv)}: exit {rc}: {err.decode(errors='replace')}")
        data = random.Random(SEED + 1)
        inputs = {"work": work}
        for name, size in (("f1", 3000), ("f2", 5000), ("in", 2000), ("in2", 1500)):
            b = bytes(data.getrandbits(8) for _ in range(size))
            inputs[name] = b
            with open(os.path.join(work, name), "wb") as f:
                f.write(b)
        patch_hex = "c0ffee0042"
        scenarios = [
            Scenario("tag, first run", "tag", "exec WEGMAN tag -k key --keep-state st f1 f2 > m", "m"),
            Scenario("tag, second run", "tag", "exec WEGMAN tag -k key --keep-state st f1 f2 > m", "m"),
            Scenario("patch", "patch",
                     f"exec WEGMAN patch -k key --state st --manifest m --offset 100 --data-hex {patch_hex} f1 > m2",
                     "m2"),
            Scenario("seal cwc -o, first run", "seal", "exec WEGMAN seal cwc --key-file ckey -o out.sealed in",
                     source="in"),
            Scenario("seal cwc -o, over the first", "seal",
                     "exec WEGMAN seal cwc --key-file ckey -o out.sealed in2", source="in2"),
        ]
        if a.brk == "rename-before-fsync":
            scenarios = [sc for sc in scenarios if sc.kind == "seal"][:1]
        elif a.brk == "store-dir-fsync":
            scenarios = [sc for sc in scenarios if sc.kind == "tag"]
        used_mac, used_cwc, manifests = set(), set(), []
        for sc in scenarios:
            t1 = time.time()
            if sc.kind == "patch":
                inputs["f1_old"] = inputs["f1"]
                inputs["f1_new"] = inputs["f1"][:100] + bytes.fromhex(patch_hex) + inputs["f1"][105:]
                with open(os.path.join(work, "m")) as f:
                    inputs["m_old"] = f.read()
            sc.pre_used = set(used_mac) if sc.kind != "seal" else set(used_cwc)
            if sc.kind == "seal":
                old = os.path.join(work, "out.sealed")
                inputs["old_sealed"] = open(old, "rb").read() if os.path.exists(old) else None
            sc.manifests = list(manifests)
            rec, _, post = record(sc, wegman, work, traces)
            if a.show_ops:
                for op in rec.ops:
                    print(f"   op {op.index:3d} {op.kind:8s} {op.a!s:60.60s} {op.b or '':.40s} "
                          f"ino={op.ino} durable_at={op.durable_at} {len(op.data) if op.kind == 'write' else ''}")
            if a.brk == "rename-before-fsync":
                gone = rec.drop_fsync_before_rename(r"(^|/)out\.sealed$")
                print(f"negative control: dropped op {gone.index}, the fsync of the staging file {gone.a}")
            elif a.brk == "store-dir-fsync":
                n = rec.drop_dirsyncs("")
                print(f"negative control: dropped the {n} fsyncs of the key's directory")
            replay(sc, rec, wegman, scratch, inputs, a.cap, rng, a.verbose)
            if sc.kind == "seal":
                used_cwc |= set(sc.run_nonces)
            else:
                used_mac |= set(sc.run_nonces)
                m = complete_manifest(post.get(sc.stdout))
                if m:
                    manifests.append(m)
            report(sc, time.time() - t1)
            total += len(sc.violations)
    except HarnessError as e:
        print(f"crash-replay: error: {e}", file=sys.stderr)
        return 1
    finally:
        if a.keep:
            print(f"work directory kept: {top}")
        else:
            shutil.rmtree(top, ignore_errors=True)
    print(f"== {len(scenarios)} scenarios, {total} violations, {time.time() - t0:.1f} s "
          f"(cap: {a.cap} distinct states replayed per scenario)")
    if a.brk:
        # Each control must be caught by the check written for its bug
        # class, not merely by some violation.
        mark = {"rename-before-fsync": "out.sealed", "store-dir-fsync": "already printed or written"}[a.brk]
        hits = sum(mark in v for sc in scenarios for v in sc.violations)
        if hits:
            print(f"negative control ({a.brk}): caught ({hits} of {total} violations by its check, as it must)")
            return 0
        print(f"negative control ({a.brk}): NOT caught: the harness is blind to this bug class")
        return 1
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
