#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print the instrumentation libraries' own events of a native trace,
reading the file as docs/format.md describes it, apart from qtrace's own
reader: chunk headers and CRCs, the catalog after META's empty line (ids
1, 2... in order of its event lines), each LIB:EVENT's layout by the
layout rule, and the raw records of DATA chunks (record with
encoding=raw and compress=off).

Usage: lib-events-read.py TRACE
Prints one line per library event record, in file order:
  ID NAME TIME field=value ...        (values in decimal)
Exits 1 with "lib-events-read: REASON" on anything it cannot read."""
import re
import struct
import sys
import zlib

KIND_META, KIND_DATA = 1, 2
FLAG_PACKED, FLAG_ZSTD = 1, 2
SIZES = {
    'uint8_t': ('B', 1), 'int8_t': ('b', 1), 'bool': ('B', 1),
    'uint16_t': ('H', 2), 'int16_t': ('h', 2),
    'uint32_t': ('I', 4), 'int32_t': ('i', 4), 'int': ('i', 4),
    'unsigned': ('I', 4), 'unsigned int': ('I', 4),
    'uint64_t': ('Q', 8), 'int64_t': ('q', 8), 'size_t': ('Q', 8),
}


def die(msg):
    sys.stderr.write('lib-events-read: %s\n' % msg)
    sys.exit(1)


def chunks(data):
    off = struct.unpack_from('<I', data, 12)[0]
    while off + 32 <= len(data):
        magic, kind, flags, _vcpu, _stream, length, crc, _seq = \
            struct.unpack_from('<IHHIIIIQ', data, off)
        if magic != 0x4b435451:
            die('bad chunk magic at 0x%x' % off)
        hdr = bytearray(data[off:off + 32])
        hdr[20:24] = b'\0\0\0\0'
        payload = data[off + 32:off + 32 + length]
        if zlib.crc32(payload, zlib.crc32(bytes(hdr))) != crc:
            die('checksum of chunk at 0x%x' % off)
        yield kind, flags, payload
        off += 32 + length


def layout(args_text):
    """[(name, struct code, offset)] by the layout rule."""
    fields = []
    off = 16
    args_text = args_text.strip()
    if args_text in ('', 'void'):
        return fields
    for arg in args_text.split(','):
        words = arg.split()
        ctype, name = ' '.join(words[:-1]), words[-1]
        if ctype not in SIZES:
            die('type %r of %s is not fixed-size' % (ctype, name))
        code, size = SIZES[ctype]
        off = (off + size - 1) // size * size
        fields.append((name, code, off))
        off += size
    return fields


def catalog(meta):
    """{id: (name, fields)} of the LIB:EVENT events of META's catalog."""
    text = meta.decode()
    if '\n\n' not in text:
        die('META has no empty line before its catalog')
    events = {}
    ev_id = 0
    for line in text.split('\n\n', 1)[1].split('\n'):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        ev_id += 1
        m = re.match(r'(?:disable\s+)?([A-Za-z_][\w:]*)\s*\(([^)]*)\)', line)
        if not m:
            die('catalog line %r' % line)
        if ':' in m.group(1):
            events[ev_id] = (m.group(1), layout(m.group(2)))
    return events


def main():
    if len(sys.argv) != 2:
        die('usage: lib-events-read.py TRACE')
    data = open(sys.argv[1], 'rb').read()
    events = None
    for kind, flags, payload in chunks(data):
        if kind == KIND_META:
            events = catalog(payload)
            continue
        if kind != KIND_DATA:
            continue
        if flags & (FLAG_PACKED | FLAG_ZSTD):
            die('packed or compressed chunk: record with encoding=raw '
                'and compress=off')
        i = 0
        while i + 16 <= len(payload):
            ev, size, _res, time = struct.unpack_from('<HHIQ', payload, i)
            if size < 16 or size % 8:
                die('record size %d' % size)
            if events is not None and ev in events:
                name, fields = events[ev]
                vals = ['%s=%d' % (f, struct.unpack_from('<' + c, payload,
                                                         i + o)[0])
                        for f, c, o in fields]
                print(' '.join(['%d' % ev, name, '%d' % time] + vals))
            i += size
    if events is None:
        die('no META chunk')


main()
