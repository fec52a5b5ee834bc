#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Turn a text file into a C header holding it as one string constant, so
# that a file kept in its own language (the flame graph's JavaScript) is
# compiled into the qtrace command. Usage: embed-text.py NAME IN OUT
import sys


def c_literal(line):
    out = []
    for ch in line:
        if ch in '\\"':
            out.append('\\' + ch)
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\t':
            out.append('\\t')
        elif ord(ch) < 0x20 or ord(ch) > 0x7e:
            raise SystemExit('embed-text: %s: only printable ASCII, found %r'
                             % (sys.argv[2], ch))
        else:
            out.append(ch)
    return '"' + ''.join(out) + '"'


def main():
    name, src, dst = sys.argv[1:4]
    with open(src, encoding='ascii', errors='strict') as f:
        lines = f.readlines()
    with open(dst, 'w') as f:
        f.write('/* Generated from %s by embed-text.py: do not edit. */\n'
                % src.split('/')[-1])
        f.write('static const char %s[] =\n' % name)
        for line in lines:
            f.write('    %s\n' % c_literal(line))
        f.write('    "";\n')


main()
