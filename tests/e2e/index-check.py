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
PACKED, ZSTD, ACCESSES, PHYS = 1, 2, 4, 8
M32 = 0xffffffff


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


class Stream:
    """A packed stream's predictors (docs/format.md, "Packed chunks" and
    "Predicted accesses"), as far as the events of its chunks need them:
    block ids, and each static access's block, place and count."""

    def __init__(self):
        self.restart()

    def restart(self):
        self.slot = {}
        self.prev = self.prev2 = 0
        self.acc = {}           # slot index -> [tb, k, n, idx, pc_off, info]
        self.cur_tb = self.cur_k = 0
        self.any_access = False

    def first_access(self):
        """The first access since the start or a restart: the block
        predictor starts again; accesses up to the next block are not
        learnt."""
        self.slot = {}
        self.prev = self.prev2 = 0
        self.cur_tb = self.cur_k = 0
        self.any_access = True

    def _bslot(self):
        h = ((self.prev * 0x9e3779b1) ^ (self.prev2 * 0x85ebca77)) & M32
        return (h >> 16) & 16383

    @staticmethod
    def _aslot(tb, k):
        return (((tb * 0x9e3779b1) & M32) >> 20) + k & 4095

    def _entry(self, tb, k):
        e = self.acc.get(self._aslot(tb, k))
        return e if e and e[0] == tb and e[1] == k else None

    def block(self, block_id):
        """A block starts: returns how many accesses it is predicted to
        make (for a block of a run)."""
        if self.cur_tb:
            e = self._entry(self.cur_tb, 0)
            if e:
                e[2] = self.cur_k
        self.prev2, self.prev = self.prev, block_id
        self.cur_tb, self.cur_k = block_id, 0
        e = self._entry(block_id, 0)
        return e[2] if e else 0

    def predicted(self):
        return self.slot.get(self._bslot(), 0)

    def missed(self, delta):
        block_id = (self.prev + delta) & M32
        self.slot[self._bslot()] = block_id
        return block_id

    def access(self, desc=None):
        """An access of the current block: desc (idx, pc_off, info) for
        a PK_MEM packet, None for a predicted one."""
        if not self.cur_tb:
            return
        i = self._aslot(self.cur_tb, self.cur_k)
        e = self.acc.get(i)
        same = e and e[0] == self.cur_tb and e[1] == self.cur_k
        if desc is None:
            if not same:
                raise ValueError('access %d of block %d has no prediction'
                                 % (self.cur_k, self.cur_tb))
        elif not (same and tuple(e[3:6]) == desc):
            if desc[1] <= M32:
                self.acc[i] = [self.cur_tb, self.cur_k, 0] + list(desc)
        self.cur_k += 1


def zigzag(v):
    return (v >> 1) ^ -(v & 1)


def ids_of(payload, flags, cat, st):
    """Event ids a DATA payload holds; st is its stream's Stream."""
    ids = set()
    i = 0
    if not flags & PACKED:
        while i < len(payload):
            ev, size = struct.unpack_from('<HH', payload, i)
            ids.add(ev)
            i += size
        return ids
    accesses = flags & ACCESSES

    def run(n, implicit=True):
        for _ in range(n):
            m = st.block(st.predicted())
            if accesses and implicit and m:
                ids.add(cat['mem_access'])
                for _ in range(m):
                    st.access()
    while i < len(payload):
        tag = payload[i]
        i += 1
        if tag <= 0x81:
            ids.add(cat['exec_tb'])
            n = tag
            if tag in (0x80, 0x81):
                n, i = varint(payload, i)
            run(n)
            if tag != 0x81:
                d, i = varint(payload, i)
                st.block(st.missed(zigzag(d)))
        elif tag in (0x83, 0x8c):
            ids.add(cat['mem_access'])
            idx, i = varint(payload, i)
            pc_off, i = varint(payload, i)
            info = payload[i]
            i += 1
            _, i = varint(payload, i)
            if tag == 0x8c and info & 0x40:
                _, i = varint(payload, i)
            if tag == 0x8c and info & 0x80:
                _, i = varint(payload, i)
            if accesses and tag == 0x83:
                if not st.any_access:
                    st.first_access()
                st.access((idx, pc_off, info))
        elif 0x84 <= tag <= 0x8b:
            ids.add(cat['func_exit' if tag >= 0x88 else 'func_entry'])
            for _ in range(4):
                _, i = varint(payload, i)
        elif tag == 0x82:
            i = (i + 7) // 8 * 8
            ev, size = struct.unpack_from('<HH', payload, i)
            ids.add(ev)
            i += size
            if ev == cat.get('lost'):
                st.restart()
        elif accesses and tag == 0x8d:
            ids.add(cat['exec_tb'])
            n, i = varint(payload, i)
            run(n)
            run(1, implicit=False)
        elif accesses and (tag == 0x8e or 0x90 <= tag <= 0xaf):
            ids.add(cat['mem_access'])
            n = tag - 0x8f
            if tag == 0x8e:
                n, i = varint(payload, i)
            for _ in range(n):
                st.access()
        elif flags & PHYS and tag == 0x8f:
            # A translation for the next access: no record, no state here.
            _, i = varint(payload, i)
        elif accesses and tag >= 0xb0:
            ids.add(cat['mem_access'])
            if tag == 0xff:
                _, i = varint(payload, i)
            st.access()
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
    streams = {}
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
        st = streams.setdefault(c[4], Stream())
        want = sum(1 << i for i in ids_of(c[6], c[2], cat, st))
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
