#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a window with address triggers should hold, cut out of a full
trace's `qtrace dump` (one stream): a window opens at the start of each
block holding START when it is not open, and closes at the start of each
block holding STOP when it is open (that block is outside). Prints the
window's edges as "open T" / "close T" lines, or with --records the
blocks, instructions and accesses inside, in the normal form of
window-lib.sh (translation ids and text after '|' dropped).

usage: window-cut.py DUMP STREAM START STOP [--once] [--records]
  START, STOP  hex addresses; STOP may be '-' (never closes)
  --once       the window opens once only (start-at=ADDR, not a marker)
"""
import re
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    once = '--once' in sys.argv
    records = '--records' in sys.argv
    dump, stream, start = args[0], args[1], int(args[2], 16)
    stop = None if args[3] == '-' else int(args[3], 16)
    size = {}
    is_open = opened = False
    for line in open(dump):
        f = line.split()
        if len(f) < 3:
            continue
        if f[2] == 'tb_trans':
            size[f[6]] = int(f[8])
            continue
        if f[0] != stream:
            continue
        if f[2] == 'exec_tb':
            pc, n = int(f[4], 16), size[f[6]]
            if is_open and stop is not None and pc <= stop < pc + n:
                is_open = False
                if not records:
                    print('close', f[1])
            elif not is_open and pc <= start < pc + n and \
                    not (once and opened):
                is_open = opened = True
                if not records:
                    print('open', f[1])
        if records and is_open and f[2] in ('exec_tb', 'exec_insn',
                                            'mem_access'):
            out = re.sub(r' tb [0-9]+', '', line.rstrip('\n'), count=1)
            print(re.sub(r' \|.*', '', out))


main()
