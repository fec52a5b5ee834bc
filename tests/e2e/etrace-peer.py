#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An etrace reader for the tests, written apart from qtrace's own.

Decodes a Xilinx etrace stream by the documented layout (docs/etrace.md)
with the standard library only, checks its structure and prints one line
per record, so that a test can compare it with what the guest did and with
`qtrace dump`. It reads a file, or is the peer at the other end of the
plugin's unix socket: it listens (QEMU connects) or connects (QEMU
listens), and can misbehave on purpose (disconnect, stall).

Usage:
  etrace-peer.py decode FILE [--elf GUEST]
  etrace-peer.py listen PATH [--out FILE] [--close-after N] [--stall S]
  etrace-peer.py connect PATH [--out FILE] [--wait S]

Lines printed:
  INFO attr=0x.. version=M.N
  ARCH guest=MACHINE/BITS/le|be host=MACHINE/BITS/le|be
  E unit start end duration time     one per EXEC entry (hex addresses)
  B unit                             BARRIER
  T unit vaddr paddr guest_len host_len
  N unit time text                   NOTE (its final newline not shown)
  M unit time r|w vaddr paddr value size
  V unit time dev event val prev flags
  U unit type len                    a type this reader does not know
Exit status: 0, or 1 with "etrace-peer: REASON" on stderr when the stream
breaks a rule (the rules are in check()). The rules, from docs/etrace.md
and the Xilinx writer's behaviour: INFO then ARCH first; each EXEC record
is followed at once by a BARRIER of its unit, and a BARRIER follows only
an EXEC; every NOTE text ends in one newline; where the stream has TB
records, every EXEC entry is exactly one block, [vaddr, vaddr + guest_len)
of a TB record (entries are never merged across blocks).
"""
import os
import socket
import struct
import sys
import time

INFO, EXEC, TB, NOTE, MEM, ARCH, BARRIER, OLD_EVENT, EVENT = (
    0x4554, 1, 2, 3, 4, 5, 6, 7, 8)


class Bad(Exception):
    pass


def endian(b):
    return "be" if b else "le"


def load_elf(path):
    """The PT_LOAD segments of an ELF file: [(vaddr, bytes)]."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        raise Bad("%s: not an ELF file" % path)
    is64 = data[4] == 2
    if is64:
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    else:
        phoff, = struct.unpack_from("<I", data, 0x1c)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x2a)
    segs = []
    for i in range(phnum):
        off = phoff + i * phentsize
        if is64:
            ptype, _, foff, vaddr, _, fsz = struct.unpack_from("<IIQQQQ",
                                                               data, off)
        else:
            ptype, foff, vaddr, _, fsz = struct.unpack_from("<IIIII", data,
                                                            off)
        if ptype == 1:
            segs.append((vaddr, data[foff:foff + fsz]))
    return segs


def elf_bytes(segs, vaddr, n):
    for base, blob in segs:
        if base <= vaddr and vaddr + n <= base + len(blob):
            return blob[vaddr - base:vaddr - base + n]
    return None


class Decoder:
    def __init__(self, elf=None):
        self.bits = None
        self.index = 0
        self.expect_barrier = None      # unit whose BARRIER must come next
        self.prev_type = None
        self.tbs = set()                # (vaddr, end) of TB records
        self.entries = []               # (record index, start, end)
        self.lines = []
        self.elf = elf

    def check(self, cond, why):
        if not cond:
            raise Bad("record %d: %s" % (self.index, why))

    def record(self, rtype, unit, p):
        """One record: its type, unit and payload."""
        if self.expect_barrier is not None:
            # qtrace writes a BARRIER right after every EXEC record.
            self.check(rtype == BARRIER and unit == self.expect_barrier,
                       "EXEC not followed by its BARRIER")
            self.expect_barrier = None
        if rtype == BARRIER:
            self.check(self.prev_type == EXEC,
                       "BARRIER that does not follow an EXEC record")
        self.prev_type = rtype
        if self.index == 0:
            self.check(rtype == INFO, "first record is not INFO")
        if self.index == 1:
            self.check(rtype == ARCH, "second record is not ARCH")
        handler = {
            INFO: self.info, ARCH: self.arch, EXEC: self.exec_,
            BARRIER: self.barrier, TB: self.tb, NOTE: self.note,
            MEM: self.mem, EVENT: self.event, OLD_EVENT: self.event,
        }.get(rtype)
        if handler:
            handler(unit, p)
        else:
            self.lines.append("U %d %d %d" % (unit, rtype, len(p)))
        self.index += 1

    def info(self, unit, p):
        self.check(len(p) == 12, "INFO payload %d bytes, not 12" % len(p))
        attr, major, minor = struct.unpack("<QHH", p)
        self.check(major == 0, "version major %d" % major)
        self.lines.append("INFO attr=0x%x version=%d.%d" % (attr, major,
                                                              minor))

    def arch(self, unit, p):
        self.check(len(p) == 16, "ARCH payload %d bytes, not 16" % len(p))
        g, gb, ge, _, h, hb, he, _ = struct.unpack("<IBBHIBBH", p)
        self.check(gb in (32, 64), "guest width %d" % gb)
        self.bits = gb
        self.lines.append("ARCH guest=%d/%d/%s host=%d/%d/%s" % (
            g, gb, endian(ge), h, hb, endian(he)))

    def exec_(self, unit, p):
        self.check(self.bits is not None, "EXEC before ARCH")
        size = 12 if self.bits == 32 else 20
        fmt = "<III" if self.bits == 32 else "<IQQ"
        self.check(len(p) >= 8 and (len(p) - 8) % size == 0,
                   "EXEC payload %d bytes: not 8 + n * %d" % (len(p), size))
        self.check(len(p) > 8, "EXEC with no entry")
        t, = struct.unpack_from("<Q", p, 0)
        for off in range(8, len(p), size):
            dur, start, end = struct.unpack_from(fmt, p, off)
            self.check(start < end, "entry [0x%x, 0x%x) is empty" % (start,
                                                                     end))
            self.lines.append("E %d 0x%x 0x%x %d %d" % (unit, start, end,
                                                        dur, t))
            self.entries.append((self.index, start, end))
            t += dur
        self.expect_barrier = unit

    def barrier(self, unit, p):
        self.check(len(p) == 0, "BARRIER with a payload")
        self.lines.append("B %d" % unit)

    def tb(self, unit, p):
        self.check(len(p) >= 32, "TB payload %d bytes" % len(p))
        va, pa, host, glen, hlen = struct.unpack_from("<QQQII", p)
        self.check(len(p) == 32 + glen + hlen,
                   "TB lengths %d + %d do not fill its %d bytes" % (
                       glen, hlen, len(p) - 32))
        if self.elf:
            want = elf_bytes(self.elf, va, glen)
            self.check(want == p[32:32 + glen],
                       "TB at 0x%x: code differs from the ELF file" % va)
        self.tbs.add((va, va + glen))
        self.lines.append("T %d 0x%x 0x%x %d %d" % (unit, va, pa, glen, hlen))

    def note(self, unit, p):
        self.check(len(p) >= 8, "NOTE payload %d bytes" % len(p))
        t, = struct.unpack_from("<Q", p)
        self.check(p.endswith(b"\n"), "NOTE text without its newline")
        text = p[8:-1].decode("utf-8", "replace")
        self.check("\n" not in text, "NOTE with more than one line")
        self.lines.append("N %d %d %s" % (unit, t, text))

    def mem(self, unit, p):
        self.check(len(p) == 40, "MEM payload %d bytes, not 40" % len(p))
        t, va, pa, val, attr, size = struct.unpack_from("<QQQQIB", p)
        self.check(size in (1, 2, 4, 8, 16), "MEM size %d" % size)
        self.lines.append("M %d %d %s 0x%x 0x%x 0x%x %d" % (
            unit, t, "w" if attr & 1 else "r", va, pa, val, size))

    def event(self, unit, p):
        self.check(len(p) >= 36, "EVENT_U64 payload %d bytes" % len(p))
        flags, eunit, _, t, val, prev, dlen, nlen = struct.unpack_from(
            "<IHHQQQHH", p)
        self.check(36 + dlen + nlen == len(p), "EVENT_U64 name lengths")
        dev = p[36:36 + dlen]
        name = p[36 + dlen:]
        self.check(dev.endswith(b"\0") and name.endswith(b"\0"),
                   "EVENT_U64 names without their NUL")
        self.lines.append("V %d %d %s %s 0x%x 0x%x 0x%x" % (
            unit, t, dev[:-1].decode(), name[:-1].decode(), val, prev, flags))

    def feed_all(self, data):
        off = 0
        while off < len(data):
            self.check(len(data) - off >= 8, "truncated header")
            rtype, unit, n = struct.unpack_from("<HHI", data, off)
            self.check(n <= 2 << 20, "payload %d over 2 MiB" % n)
            self.check(len(data) - off - 8 >= n, "truncated payload")
            self.record(rtype, unit, data[off + 8:off + 8 + n])
            off += 8 + n
        self.check(self.expect_barrier is None, "ends after an EXEC")
        if self.tbs:
            for index, start, end in self.entries:
                if (start, end) not in self.tbs:
                    self.index = index
                    self.check(False, "EXEC entry [0x%x, 0x%x) is not one "
                               "block of a TB record" % (start, end))


def read_all(conn, stall):
    if stall:
        time.sleep(stall)
        return b""
    chunks = []
    while True:
        b = conn.recv(1 << 16)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


def serve(args):
    """listen PATH: QEMU connects to us."""
    path = args[0]
    opts = dict(zip(args[1::2], args[2::2]))
    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    # Tell the test we are ready: it starts QEMU when this file appears.
    with open(path + ".ready", "w"):
        pass
    conn, _ = srv.accept()
    if "--close-after" in opts:
        got = 0
        want = int(opts["--close-after"])
        while got < want:
            b = conn.recv(want - got)
            if not b:
                break
            got += len(b)
        conn.close()
        print("closed after %d bytes" % got)
        return 0
    data = read_all(conn, float(opts.get("--stall", 0)))
    conn.close()
    return finish(data, opts)


def connect(args):
    """connect PATH: QEMU listens, we connect once its socket exists."""
    path = args[0]
    opts = dict(zip(args[1::2], args[2::2]))
    deadline = time.time() + float(opts.get("--wait", 30))
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            break
        except OSError:
            s.close()
            if time.time() > deadline:
                raise Bad("%s: no socket to connect to" % path)
            time.sleep(0.05)
    data = read_all(s, 0)
    s.close()
    return finish(data, opts)


def finish(data, opts):
    if "--out" in opts:
        with open(opts["--out"], "wb") as f:
            f.write(data)
    d = Decoder()
    d.feed_all(data)
    print("\n".join(d.lines))
    return 0


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "decode":
            opts = dict(zip(args[1::2], args[2::2]))
            elf = load_elf(opts["--elf"]) if "--elf" in opts else None
            with open(args[0], "rb") as f:
                data = f.read()
            d = Decoder(elf)
            try:
                d.feed_all(data)
            finally:
                print("\n".join(d.lines))
            return 0
        if cmd == "listen":
            return serve(args)
        if cmd == "connect":
            return connect(args)
    except Bad as e:
        sys.stdout.flush()
        sys.stderr.write("etrace-peer: %s\n" % e)
        return 1
    sys.stderr.write("etrace-peer: unknown command %s\n" % cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
