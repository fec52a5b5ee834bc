#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The name nm gives each address: reads `nm` output (ADDR TYPE NAME
lines) from the file NM and addresses (0x...) from stdin, and prints
"ADDR NAME+0xOFF" for each, NAME being the text symbol (t, T, w, W) with
the highest address at or below ADDR, or "ADDR ?" when there is none.
Several names at one address: the fewest leading underscores, then the
first in name order. An independent reading of what a symbol table says,
for the --symbols tests. Usage: nm-names.py NM < ADDRS."""
import sys


def text_symbols(path):
    """(addr, name) of every text symbol of an nm listing, sorted."""
    syms = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 3 and fields[1] in 'tTwW':
                syms.append((int(fields[0], 16), fields[2]))
    syms.sort(key=lambda s: (s[0], len(s[1]) - len(s[1].lstrip('_')),
                             s[1]))
    return syms


def name_of(syms, addr):
    """NAME+0xOFF of addr, or ?."""
    best = None
    for at, name in syms:
        if at > addr:
            break
        if best is None or at > best[0]:
            best = (at, name)
    if best is None:
        return '?'
    return '%s+0x%x' % (best[1], addr - best[0])


def main():
    syms = text_symbols(sys.argv[1])
    for line in sys.stdin:
        word = line.strip()
        if word:
            print(word, name_of(syms, int(word, 16)))


main()
