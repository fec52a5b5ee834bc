#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare what babeltrace2 prints of a `qtrace convert --to ctf`
directory (babeltrace2 --clock-cycles DIR) with `qtrace dump` of the same
trace, event by event: per stream, the same events in the same order, at
the same times, with the same field values. dump's vCPU column is mapped
to the CTF stream through `qtrace info --per-cpu` lines given in a file.

Values: the numbers of dump's arguments (decimal or 0x hex, in the
order its format prints them) against the integer fields babeltrace2
prints, in declaration order; strings of babeltrace2 ("path = "...""
) must be words of dump's line. mem_access (dump decodes its flags) is
compared on pc, vaddr and size; tb_trans on pc, tb, size, n_insns and
the length of its code; a library's event LIB:EVENT like the others.

Prints "compared N", the events per name "count NAME=N ...", the
streams "streams CPU:STREAM ...", then one line per difference (at most
ten) and "differences N".

Usage: ctf-compare.py BABELTRACE.txt DUMP.txt PER-CPU.txt
"""
import collections
import re
import sys

BT = re.compile(r'^\[(\d+)\] \(\+[^)]*\) (\S+): \{ cpu_id = (\d+), '
                r'qtrace_stream = (\d+) \}(?:, \{ (.*) \})?$')
NUM = re.compile(r'^-?(0x[0-9a-fA-F]+|[0-9]+)$')


def bt_fields(text):
    """[(name, value)] of babeltrace2's '{ a = 1, s = "x", c = [ ... ] }'."""
    out = []
    i = 0
    while text and i < len(text):
        m = re.compile(r'\s*([A-Za-z_0-9]+) = ').match(text, i)
        if not m:
            break
        name, i = m.group(1), m.end()
        if text[i] == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append((name, text[i + 1:j]))
            i = j + 1
        elif text[i] == "[":
            depth, j = 0, i
            while True:
                depth += {"[": 1, "]": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
            out.append((name, text[i:j]))
            i = j
        else:
            m = re.compile(r'(-?[0-9A-Fa-fx]+)').match(text, i)
            out.append((name, int(m.group(1), 0)))
            i = m.end()
        if i < len(text) and text[i] == ",":
            i += 1
    return out


def main():
    bt_path, dump_path, percpu_path = sys.argv[1:4]
    stream_of_cpu = {}
    for line in open(percpu_path):
        w = line.split()
        if len(w) == 5 and w[0] == "vcpu" and w[2] == "stream":
            stream_of_cpu.setdefault(w[1], w[3])
    bt = collections.defaultdict(list)
    counts = collections.Counter()
    streams = set()
    for line in open(bt_path):
        m = BT.match(line.rstrip("\n"))
        if not m:
            raise SystemExit("unparsed babeltrace2 line: " + line[:200])
        ts, name, cpu, stream, fields = m.groups()
        bt[stream].append((int(ts), name, bt_fields(fields or "")))
        counts[name] += 1
        streams.add("%s:%s" % (cpu, stream))
    dump = collections.defaultdict(list)
    for line in open(dump_path):
        w = line.rstrip("\n").split(" | ")[0].split(" ")
        stream = "4294967295" if w[0] == "-" else stream_of_cpu[w[0]]
        dump[stream].append((int(w[1]), w[2], w[3:]))
    diffs = []
    compared = 0

    def differ(msg):
        if len(diffs) < 10:
            diffs.append(msg)
        else:
            diffs.append(None)

    for stream in sorted(set(bt) | set(dump)):
        a, b = dump.get(stream, []), bt.get(stream, [])
        if len(a) != len(b):
            differ("stream %s: dump %d events, babeltrace2 %d"
                   % (stream, len(a), len(b)))
        for k, ((t1, n1, words), (t2, n2, fields)) in enumerate(zip(a, b)):
            compared += 1
            where = "stream %s event %d (%s)" % (stream, k, n1)
            if (t1, n1) != (t2, n2):
                differ("%s: dump %s at %d, babeltrace2 %s at %d"
                       % (where, n1, t1, n2, t2))
                continue
            values = dict(fields)
            nums = [int(x, 0) for x in words if NUM.match(x)]
            if n1 == "mem_access":
                want = [values["pc"], values["vaddr"], values["size"]]
                got = [int(words[words.index(k) + 1], 0)
                       for k in ("pc", "vaddr", "size")]
            elif n1 == "tb_trans":
                want = [values["pc"], values["tb"], values["size"],
                        values["n_insns"], values["code_len"]]
                got = nums[:4] + [nums[2]]
                if values["code"].count("] =") != values["code_len"]:
                    differ("%s: %d code bytes for code_len %d"
                           % (where, values["code"].count("] ="),
                              values["code_len"]))
            else:
                want = [v for _, v in fields if isinstance(v, int)]
                got = nums
                for _, v in fields:
                    if isinstance(v, str) and v and v not in words:
                        differ("%s: string %r not in dump's %r"
                               % (where, v, words))
            if want != got:
                differ("%s: babeltrace2 %s, dump %s" % (where, want, got))
    print("compared %d" % compared)
    print("count " + " ".join("%s=%d" % (k, counts[k])
                              for k in sorted(counts)))
    print("streams " + " ".join(sorted(streams)))
    for d in diffs:
        if d:
            print(d)
    print("differences %d" % len(diffs))


if __name__ == "__main__":
    main()
