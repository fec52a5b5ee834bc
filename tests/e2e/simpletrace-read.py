#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# An independent reader of simpletrace version 4, written from the format
# (docs/format.md, "simpletrace"), not from qtrace's C: prints one line per
# event record, "name pid=PID arg=value ...", integers in hex and strings
# as they are; a dropped record prints "dropped pid=PID count=N". Argument
# types come from the trace-events file given, read with a few regexes.
# Usage: simpletrace-read.py TRACE_EVENTS TRACE_FILE
import re
import struct
import sys


def read_events(path):
    """name -> list of (is_string, arg name), from a trace-events file."""
    events = {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        m = re.match(r'((?:\w+\s+)*)(\w+)\(([^)]*)\)', line)
        props, name, args = m.group(1).split(), m.group(2), m.group(3)
        out = [(False, '__cpu')] if 'vcpu' in props else []
        for arg in args.split(','):
            arg = arg.strip()
            if arg in ('', 'void'):
                continue
            aname = re.split(r'[\s*]+', arg)[-1]
            atype = arg[:-len(aname)].replace(' ', '')
            out.append((atype in ('constchar*', 'char*'), aname))
        events[name] = out
    return events


def main():
    events = read_events(sys.argv[1])
    data = open(sys.argv[2], 'rb').read()
    head_id, magic, version = struct.unpack_from('<QQQ', data, 0)
    if head_id != 0xffffffffffffffff or magic != 0xf2b177cb0aa429b4:
        sys.exit('not a simpletrace file')
    if version != 4:
        sys.exit('version %d' % version)
    pos = 24
    names = {}
    while pos < len(data):
        (rtype,) = struct.unpack_from('<Q', data, pos)
        pos += 8
        if rtype == 0:
            eid, nlen = struct.unpack_from('<QI', data, pos)
            names[eid] = data[pos + 12:pos + 12 + nlen].decode()
            pos += 12 + nlen
            continue
        eid, ts, length, pid = struct.unpack_from('<QQII', data, pos)
        body = pos + 24
        end = pos + length
        pos = end
        if eid == 0xfffffffffffffffe:
            (count,) = struct.unpack_from('<Q', data, body)
            print('dropped pid=%d count=%d' % (pid, count))
            continue
        name = names[eid]
        fields = [name, 'pid=%d' % pid]
        for is_str, aname in events[name]:
            if is_str:
                (slen,) = struct.unpack_from('<I', data, body)
                fields.append('%s=%s' % (aname,
                              data[body + 4:body + 4 + slen].decode()))
                body += 4 + slen
            else:
                (v,) = struct.unpack_from('<Q', data, body)
                fields.append('%s=0x%x' % (aname, v))
                body += 8
        if body != end:
            sys.exit('record of %s: %d bytes of arguments left' %
                     (name, end - body))
        print(' '.join(fields))


main()
