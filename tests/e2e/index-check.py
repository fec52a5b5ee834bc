#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a trace's INDEX chunk against the chunks themselves, reading the
file as docs/format.md describes it (independently of the C reader):
chunk headers and CRCs, the INDEX payload, and for every DATA chunk the
event ids its records and packets hold (raw or packed, not zstd: record
with compress=off). Usage: index-check.py TRACE. Prints one line per
problem, "ok N" when the index lists all N DATA chunks right, and exits
1 on any problem."""
import struct
import sys
import zlib

KIND_META, KIND_DATA, KIND_END, KIND_INDEX = 1, 2, 3, 4
PACKED, ZSTD = 1, 2


def chunks(data):
    """(offset, kind, flags, vcpu, stream, seq, payload) of every chunk."""
    off = struct.unpack_from('<I', data, 12)[0]
    out = []
    while off + 32 <= len(data):
        magic, kind, flags, vcpu, stream, length, crc, seq = \
            struct.unpack_from('<IHHIIIIQ', data, off)
        if magic != 0x4b435451:
            raise ValueError('bad magic at 0x%x' % off)
        hdr = bytearray(data[off:off + 32])
        hdr[20:24] = b'\0\0\0\0'
        payload = data[off + 32:off + 32 + length]
        if zlib.crc32(payload, zlib.crc32(bytes(hdr))) != crc:
            raise ValueError('checksum of chunk at 0x%x' % off)
        out.append((off, kind, flags, vcpu, stream, seq, payload))
        off += 32 + length
    return out


def varint(p, i):
    v = shift = 0
    while True:
        b = p[i]
        i += 1
        v |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def ids_of(payload, packed, cat):
    """Event ids a DATA payload holds."""
    ids = set()
    i = 0
    if not packed:
        while i < len(payload):
            ev, size = struct.unpack_from('<HH', payload, i)
            ids.add(ev)
            i += size
        return ids
    while i < len(payload):
        tag = payload[i]
        i += 1
        if tag <= 0x81:
            ids.add(cat['exec_tb'])
            for _ in range(2 if tag == 0x80 else 1):
                _, i = varint(payload, i)
        elif tag in (0x83, 0x8c):
            ids.add(cat['mem_access'])
            _, i = varint(payload, i)
            _, i = varint(payload, i)
            info = payload[i]
            i += 1
            _, i = varint(payload, i)
            if tag == 0x8c and info & 0x40:
                _, i = varint(payload, i)
            if tag == 0x8c and info & 0x80:
                _, i = varint(payload, i)
        elif 0x84 <= tag <= 0x8b:
            ids.add(cat['func_exit' if tag >= 0x88 else 'func_entry'])
            for _ in range(4):
                _, i = varint(payload, i)
        elif tag == 0x82:
            i = (i + 7) // 8 * 8
            ev, size = struct.unpack_from('<HH', payload, i)
            ids.add(ev)
            i += size
        else:
            raise ValueError('unknown packet tag 0x%02x' % tag)
    return ids


def catalog(meta):
    """Event name -> id, from the META chunk's catalog text."""
    text = meta.decode()
    lines = text.split('\n\n', 1)[1].splitlines()
    cat = {}
    for line in lines:
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        words = line.split('(')[0].split()
        cat[words[-1]] = len(cat) + 1
    return cat


def main():
    data = open(sys.argv[1], 'rb').read()
    all_chunks = chunks(data)
    cat = catalog(all_chunks[0][6])
    problems = []
    kinds = [c[1] for c in all_chunks]
    if kinds.count(KIND_INDEX) != 1:
        print('%d INDEX chunks' % kinds.count(KIND_INDEX))
        return 1
    at = kinds.index(KIND_INDEX)
    if at != len(kinds) - 2 or kinds[-1] != KIND_END:
        problems.append('INDEX is not the chunk just before END')
    ioff, _, _, _, _, iseq, p = all_chunks[at]
    entry_size, n, words = struct.unpack_from('<IIH', p, 0)
    own_off = struct.unpack_from('<Q', p, len(p) - 16)[0]
    if p[-8:] != b'QTRINDEX' or own_off != ioff:
        problems.append('footer: tag %r, offset 0x%x for 0x%x'
                        % (p[-8:], own_off, ioff))
    data_chunks = [c for c in all_chunks if c[1] == KIND_DATA]
    if n != len(data_chunks):
        problems.append('%d entries for %d DATA chunks' % (n, len(data_chunks)))
    for k, c in enumerate(data_chunks[:n]):
        e = 16 + k * entry_size
        off, seq, vcpu, stream = struct.unpack_from('<QQII', p, e)
        mask = 0
        for w in range(words):
            mask |= struct.unpack_from('<Q', p, e + 32 + 8 * w)[0] << (64 * w)
        if (off, seq, vcpu, stream) != (c[0], c[5], c[3], c[4]):
            problems.append('entry %d: (0x%x, %d, %d, %d) for chunk '
                            '(0x%x, %d, %d, %d)' % (k, off, seq, vcpu, stream,
                                                    c[0], c[5], c[3], c[4]))
        if c[2] & ZSTD:
            continue
        want = sum(1 << i for i in ids_of(c[6], c[2] & PACKED, cat))
        if mask != want:
            problems.append('entry %d: events 0x%x, chunk holds 0x%x'
                            % (k, mask, want))
    for line in problems:
        print(line)
    if problems:
        return 1
    print('ok %d' % n)
    return 0


if __name__ == '__main__':
    sys.exit(main())
