#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write native traces (.qtr) that are well framed but hostile: valid
checksums and chunk headers around a catalog, records or packets that a
reader must refuse, or bound, rather than trust. Built from the text of
docs/format.md (file header, chunk header, CRC-32, META text, the layout
rule, packets), not from qtrace's own code, so that a reader's mistakes
are not repeated here.

usage: hostile-trace.py CLASS OUT    write one trace of CLASS to OUT
       hostile-trace.py --list       print the classes, one a line
"""
import struct
import subprocess
import sys
import zlib

# docs/format.md, "Layout rule": sizes (= alignments) of argument types;
# variable-length arguments take a 2-byte length in the fixed part.
TYPE_SIZE = {
    'uint8_t': 1, 'int8_t': 1, 'bool': 1, 'uint16_t': 2, 'int16_t': 2,
    'uint32_t': 4, 'int32_t': 4, 'uint64_t': 8, 'int64_t': 8,
    'const char *': 2, 'const uint8_t *': 2,
}
VARIABLE = ('const char *', 'const uint8_t *')

# The events a packed trace needs, declared in trace-events syntax.
EVENTS = {
    'lost': [('uint64_t', 'records'), ('uint32_t', 'block_insns')],
    'tb_trans': [('uint64_t', 'pc'), ('uint32_t', 'tb'), ('uint32_t', 'size'),
                 ('uint32_t', 'n_insns'), ('const uint8_t *', 'code')],
    'exec_tb': [('uint64_t', 'pc'), ('uint32_t', 'tb')],
    'exec_insn': [('uint64_t', 'pc'), ('uint32_t', 'tb'),
                  ('uint16_t', 'idx')],
    'mem_access': [('uint64_t', 'pc'), ('uint64_t', 'vaddr'),
                   ('uint64_t', 'paddr'), ('uint8_t', 'size'),
                   ('uint8_t', 'flags'), ('const char *', 'device')],
    'func_entry': [('uint64_t', 'pc'), ('uint64_t', 'from'),
                   ('uint32_t', 'depth'), ('uint8_t', 'kind')],
    'func_exit': [('uint64_t', 'pc'), ('uint64_t', 'to'),
                  ('uint32_t', 'depth'), ('uint8_t', 'kind')],
    'nop': [],
}

def layout(args):
    """Offsets of args and the fixed size, by the layout rule."""
    off, offsets = 16, {}
    for ctype, name in args:
        size = TYPE_SIZE[ctype]
        off = (off + size - 1) // size * size
        offsets[name] = off
        off += size
    return offsets, off


class Catalog:
    def __init__(self, events):
        self.events = events                    # name -> args, in order
        self.ids = {n: i + 1 for i, n in enumerate(events)}

    def text(self):
        """trace-events lines: name(args) "format", 64-bit values with
        PRIu64 as C would spell them."""
        lines = []
        for name, args in self.events.items():
            decl = ', '.join(f'{t} {n}' if not t.endswith('*') else f'{t}{n}'
                             for t, n in args)
            conv = ['%s' if t in VARIABLE else
                    '%" PRIu64 "' if TYPE_SIZE[t] == 8 else '%u'
                    for t, _ in args]
            fmt = ' '.join(f'{n} {c}' for (_, n), c in zip(args, conv))
            lines.append(f'{name}({decl or "void"}) "{fmt}"')
        return '\n'.join(lines) + '\n'

    def record(self, name, time=0, var=(), **values):
        """One record of event name (docs/format.md, "DATA chunks")."""
        args = self.events[name]
        offsets, fixed = layout(args)
        var = list(var)
        size = fixed + sum(len(v) for v in var)
        size = (size + 7) // 8 * 8
        rec = bytearray(size)
        struct.pack_into('<HHIQ', rec, 0, self.ids[name], size, 0, time)
        vi, pos = 0, fixed
        for ctype, arg in args:
            o = offsets[arg]
            if ctype in VARIABLE:
                data = var[vi]
                vi += 1
                struct.pack_into('<H', rec, o, len(data))
                rec[pos:pos + len(data)] = data
                pos += len(data)
            else:
                n = TYPE_SIZE[ctype]
                v = values.get(arg, 0) & ((1 << (8 * n)) - 1)
                rec[o:o + n] = v.to_bytes(n, 'little')
        return bytes(rec)


def chunk(kind, seq, payload, flags=0, vcpu=0, stream=0):
    """A chunk: 32-byte header, CRC-32 over it (crc zeroed) and payload."""
    hdr = struct.pack('<IHHIIIIQ', 0x4b435451, kind, flags, vcpu, stream,
                      len(payload), 0, seq)
    crc = zlib.crc32(payload, zlib.crc32(hdr))
    return hdr[:20] + struct.pack('<I', crc) + hdr[24:] + payload


META, DATA, END = 1, 2, 3
PACKED, ZSTD = 1, 2
TRANS_VCPU = 0xffffffff


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(v):
    return (v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1


def meta(cat):
    keys = ('format=1\narch=x86_64\nword_bits=64\nendian=little\n'
            'mode=user\ntime=insns\nevents=all\n')
    return (keys + '\n' + cat.text()).encode()


def trace(cat, data_chunks, end=None):
    """File header, META, the DATA chunks (kwargs of chunk()), END."""
    out = bytearray(b'QTRACE\r\n' + struct.pack('<II', 1, 16))
    out += chunk(META, 0, meta(cat))
    seq = 1
    for c in data_chunks:
        out += chunk(DATA, seq, **c)
        seq += 1
    if end is not None:
        out += chunk(END, seq, end.encode())
    return bytes(out)


def translation(cat, tb, pc=0x400000, size=4, n_insns=1, code=b'\x90' * 4):
    return dict(payload=cat.record('tb_trans', pc=pc, tb=tb, size=size,
                                   n_insns=n_insns, var=[code]),
                vcpu=TRANS_VCPU)


def block_packet(delta, run=0):
    """A block packet naming the block delta ids after the last one."""
    if run <= 0x7f:
        return bytes([run]) + varint(zigzag(delta))
    return b'\x80' + varint(run) + varint(zigzag(delta))


def with_field_last(name, field):
    """The catalog with event name's field declared uint8_t at offset 63,
    the last byte of a 64-byte record: its other arguments first (wide
    ones, then narrower), then fillers up to offset 63."""
    others = [a for a in EVENTS[name] if a[1] != field]
    wide = [a for a in others if TYPE_SIZE[a[0]] == 8]
    narrow = sorted([a for a in others if TYPE_SIZE[a[0]] < 8],
                    key=lambda a: -TYPE_SIZE[a[0]])
    narrow_bytes = sum(TYPE_SIZE[t] for t, _ in narrow)
    args = list(wide)
    off = layout(args)[1]
    # 64-bit fillers first: an event takes 12 arguments at most.
    while off + 8 + narrow_bytes <= 63:
        args.append(('uint64_t', f'pad{off}'))
        off += 8
    args += narrow
    off += narrow_bytes
    while off < 63:
        size = next(n for n in (4, 2, 1) if off % n == 0 and off + n <= 63)
        args.append(({4: 'uint32_t', 2: 'uint16_t', 1: 'uint8_t'}[size],
                     f'pad{off}'))
        off += size
    args.append(('uint8_t', field))
    offsets, fixed_size = layout(args)
    assert offsets[field] == 63 and fixed_size == 64, (offsets, fixed_size)
    events = dict(EVENTS)
    events[name] = args
    return Catalog(events)


def cat_field_u8(name, field, packet):
    cat = with_field_last(name, field)
    chunks = [translation(cat, 1)] if name != 'tb_trans' else []
    chunks.append(dict(payload=packet, flags=PACKED, vcpu=0, stream=1))
    return trace(cat, chunks, 'records=2\n')


def tb_trans_u8tb(compress):
    """tb as the last byte of a tb_trans record (no code bytes): raw, a
    record of 16 bytes follows it; compressed, the payload ends there."""
    cat = with_field_last('tb_trans', 'tb')
    payload = cat.record('tb_trans', pc=0x400000, size=4, n_insns=1,
                         tb=1, var=[b''])
    assert len(payload) == 64
    if not compress:
        payload += cat.record('nop')
    c = dict(payload=payload, vcpu=TRANS_VCPU)
    if compress:
        c['payload'] = zstd_frame(payload)
        c['flags'] = ZSTD
    return trace(cat, [c], 'records=1\n')


def big_stream(end='records=2\nchunks=2\n'):
    cat = Catalog(EVENTS)
    return trace(cat, [translation(cat, 1),
                       dict(payload=block_packet(1), flags=PACKED, vcpu=0,
                            stream=(1 << 26) + 1)], end)


def big_tb(end='records=2\nchunks=2\n'):
    cat = Catalog(EVENTS)
    tb = (1 << 26) + 1
    return trace(cat, [translation(cat, tb),
                       dict(payload=block_packet(tb), flags=PACKED, vcpu=0,
                            stream=1)], end)


# An END as the plugin writes it: ids declared, one translation, stream 1.
DECLARED = 'records=2\nchunks=2\nstreams=1\ntranslations=1\n'


def over_records():
    """Two raw records where END counts one: the second is refused."""
    cat = Catalog(EVENTS)
    blk = cat.record('exec_tb', pc=0x400000, tb=1)
    return trace(cat, [translation(cat, 1),
                       dict(payload=blk, vcpu=0, stream=1)],
                 'records=1\nchunks=2\n')


def many_streams(n=400):
    """Every packed stream costs the reader its predictor table."""
    cat = Catalog(EVENTS)
    chunks = [translation(cat, 1)]
    chunks += [dict(payload=block_packet(1), flags=PACKED, vcpu=0, stream=s)
               for s in range(1, n + 1)]
    return trace(cat, chunks, f'records={n + 1}\nchunks={n + 1}\n')


def packed_run(end):
    """Block 1 three times, then a run of 2^32 - 1 predicted blocks."""
    cat = Catalog(EVENTS)
    packets = block_packet(1) + block_packet(0) + block_packet(0)
    packets += b'\x81' + varint((1 << 32) - 1)
    return trace(cat, [translation(cat, 1),
                       dict(payload=packets, flags=PACKED, vcpu=0,
                            stream=1)],
                 'records=1\nchunks=2\n' if end else None)


def huge_ninsns():
    cat = Catalog(EVENTS)
    tt = translation(cat, 1, size=1, n_insns=0xffffffff, code=b'\x90')
    insn = cat.record('exec_insn', pc=0x400000, tb=1, idx=5)
    return trace(cat, [tt, dict(payload=insn, vcpu=0, stream=1)],
                 'records=2\nchunks=2\n')


def zstd_frame(payload):
    """One zstd frame with its content size, by the zstd command."""
    return subprocess.run(['zstd', '-q', '-c', '--content-size',
                           f'--stream-size={len(payload)}'],
                          input=payload, capture_output=True,
                          check=True).stdout


def cut_lost():
    """A record packet whose lost record stops after its header, at the
    end of a compressed payload (the reader's heap buffer)."""
    cat = Catalog(EVENTS)
    lost = cat.record('lost', time=7, records=1, block_insns=1)
    assert len(lost) == 32
    payload = block_packet(1) + b'\x82' + bytes(5) + lost[:16]
    assert len(payload) == 24
    return trace(cat, [translation(cat, 1),
                       dict(payload=zstd_frame(payload),
                            flags=PACKED | ZSTD, vcpu=0, stream=1)],
                 'records=3\nchunks=2\n')


def many_translations(n=2000, size=1000):
    """Translations dump keeps the code of, for exec_insn records."""
    cat = Catalog(EVENTS)
    code = b'\x90' * size
    trans = b''.join(cat.record('tb_trans', pc=0x400000 + tb * size, tb=tb,
                                size=size, n_insns=size, var=[code])
                     for tb in range(1, n + 1))
    insn = cat.record('exec_insn', pc=0x400000 + size, tb=1, idx=0)
    return trace(cat, [dict(payload=trans, vcpu=TRANS_VCPU),
                       dict(payload=insn, vcpu=0, stream=1)],
                 f'records={n + 1}\nchunks=2\n')


CLASSES = {
    'cat-exec-tb-u8pc': lambda: cat_field_u8('exec_tb', 'pc',
                                             block_packet(1)),
    'cat-func-entry-u8pc': lambda: cat_field_u8(
        'func_entry', 'pc', b'\x84' + b''.join(varint(zigzag(v))
                                              for v in (5, 0x400000, 0, 1))),
    'cat-mem-u8pc': lambda: cat_field_u8(
        'mem_access', 'pc', block_packet(1) + b'\x83' + varint(0) +
        varint(0) + b'\x03' + varint(zigzag(0x1000))),
    'cat-tb-trans-u8tb-raw': lambda: tb_trans_u8tb(False),
    'cat-tb-trans-u8tb-zstd': lambda: tb_trans_u8tb(True),
    'big-stream': big_stream,
    'big-tb': big_tb,
    'big-stream-declared': lambda: big_stream(DECLARED),
    'big-tb-declared': lambda: big_tb(DECLARED),
    'over-records': over_records,
    'many-streams': many_streams,
    'many-translations': many_translations,
    'packed-bomb': lambda: packed_run(True),
    'packed-long-run': lambda: packed_run(False),
    'huge-ninsns': huge_ninsns,
    'cut-lost': cut_lost,
}


def main(argv):
    if argv[1:] == ['--list']:
        print('\n'.join(CLASSES))
        return 0
    if len(argv) != 3 or argv[1] not in CLASSES:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[2], 'wb') as f:
        f.write(CLASSES[argv[1]]())
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
