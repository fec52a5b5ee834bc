#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A strict reader of drcov logs, written from the format's facts (the
layout DynamoRIO's drcov writes, as Lighthouse and lightkeeper read it),
for the tests of `qtrace coverage --format drcov`.

Usage: drcov-read.py FILE
Prints the table's kind (binary or text), one line per module-table
line in the table's order, then one per block, sorted:
  module ID CONTAINING_ID START END ENTRY OFFSET PATH   (hex without 0x)
  block ADDRESS SIZE ID                                 (ADDRESS absolute)
where a block's ADDRESS is its start plus the base of its file: the
start of the line its id's containing_id names (DRCOV VERSION 2).
Exits 1 with one line on stderr at the first departure from the format.
"""
import re
import struct
import sys

COLUMNS = "Columns: id, containing_id, start, end, entry, offset, path"
# lightkeeper's module line for table version 4 (Linux columns).
MODULE = re.compile(r"^\s*(\d+), \s*(\d+), (0x)?([0-9a-fA-F]+), "
                    r"(0x)?([0-9a-fA-F]+), (0x)?([0-9a-fA-F]+), "
                    r"(0x)?([0-9a-fA-F]+), (.+)$")
# Lighthouse's text block line.
TEXT_BB = re.compile(r"^module\[\s*(\d+)\]:\s*(0x[0-9a-fA-F]+),\s*(\d+)$")


def fail(msg):
    print("drcov-read: " + msg, file=sys.stderr)
    sys.exit(1)


def read_line(data, pos):
    end = data.find(b"\n", pos)
    if end < 0:
        fail("line expected at byte %d" % pos)
    return data[pos:end].decode("utf-8"), end + 1


def read_modules(data, pos):
    line, pos = read_line(data, pos)
    m = re.fullmatch(r"Module Table: version (\d+), count (\d+)", line)
    if not m or m.group(1) != "4":
        fail("module table header %r" % line)
    count = int(m.group(2))
    line, pos = read_line(data, pos)
    if line != COLUMNS:
        fail("columns %r" % line)
    mods = []
    for i in range(count):
        line, pos = read_line(data, pos)
        m = MODULE.match(line)
        if not m:
            fail("module line %r" % line)
        mid, cid = int(m.group(1)), int(m.group(2))
        if mid != i:
            fail("module id %d on line %d" % (mid, i))
        if cid > mid or mods and cid != mid and mods[cid][1] != cid:
            fail("containing_id %d of module %d" % (cid, mid))
        mods.append((mid, cid, int(m.group(4), 16), int(m.group(6), 16),
                     int(m.group(8), 16), int(m.group(10), 16),
                     m.group(11)))
        if mods[-1][2] >= mods[-1][3]:
            fail("module %d: start not below end" % mid)
        if cid != mid and mods[cid][6] != mods[-1][6]:
            fail("module %d: another path than its container" % mid)
    return mods, pos


def read_blocks(data, pos, mods):
    line, pos = read_line(data, pos)
    m = re.fullmatch(r"BB Table: (\d+) bbs", line)
    if not m:
        fail("BB table header %r" % line)
    count = int(m.group(1))
    blocks = []
    if data[pos:pos + 9] == b"module id":
        line, pos = read_line(data, pos)
        if line != "module id, start, size:":
            fail("text table header %r" % line)
        for _ in range(count):
            line, pos = read_line(data, pos)
            m = TEXT_BB.match(line)
            if not m:
                fail("text block %r" % line)
            blocks.append((int(m.group(2), 16), int(m.group(3)),
                           int(m.group(1))))
        kind = "text"
    else:
        # lightkeeper refuses trailing bytes: exactly count entries.
        if len(data) - pos != 8 * count:
            fail("%d bytes of blocks for %d entries" % (len(data) - pos,
                                                       count))
        for i in range(count):
            blocks.append(struct.unpack_from("<IHH", data, pos + 8 * i))
        pos += 8 * count
        kind = "binary"
    if pos != len(data):
        fail("%d bytes after the block table" % (len(data) - pos))
    for start, size, mid in blocks:
        if mid >= len(mods):
            fail("block of module %d, past the table" % mid)
    return blocks, kind


def main():
    data = open(sys.argv[1], "rb").read()
    line, pos = read_line(data, 0)
    if line != "DRCOV VERSION: 2":
        fail("version line %r" % line)
    line, pos = read_line(data, pos)
    if not line.startswith("DRCOV FLAVOR: "):
        fail("flavor line %r" % line)
    mods, pos = read_modules(data, pos)
    blocks, kind = read_blocks(data, pos, mods)
    print("table %s" % kind)
    for mid, cid, start, end, entry, off, path in mods:
        print("module %d %d %x %x %x %x %s" % (mid, cid, start, end, entry,
                                               off, path))
    out = []
    for start, size, mid in blocks:
        base = mods[mods[mid][1]][2]
        addr = base + start
        seg = mods[mid]
        if not seg[2] <= addr < seg[3]:
            fail("block 0x%x of module %d lies outside it" % (addr, mid))
        out.append("block %x %d %d" % (addr, size, mid))
    for line in sorted(out):
        print(line)


main()
