#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare qtrace's function report with callgrind's, function by function.

Usage: callgrind-compare.py CALLGRIND_OUT ANNOTATE REPORT MAPS EXITS OBJECT...

CALLGRIND_OUT  callgrind's profile (--separate-recs=1)
ANNOTATE       `callgrind_annotate --inclusive=yes` of it
REPORT         `qtrace report --functions` of the same program
MAPS           `qtrace dump -e image_map` of that trace
EXITS          "KIND NAME" lines: the functions with a func_exit of kind
               2 (replaced by a tail call) or 3 (open at exit)
OBJECT         host paths of the objects whose functions are compared

A function is known on both sides by its object and its ELF address in
it: callgrind names a function it has no symbol for by that address
(`0x...`), qtrace by its run-time address (image_map gives the object
and its load bias); named functions get their address from the object's
symbols and those of its debug file (nm). The rules of docs/calls.md
("Comparing with callgrind") say what is left out and what is compared
on its calls only.

Prints one line per function: "agree" or "differ" with both sides'
calls and inclusive instructions (and the rule that limits the
comparison to calls), "skipped", "qtrace-only" or "callgrind-only";
then a summary line "functions: N compared, A agree (C on calls only),
D differ, ...". Exit status 0.
"""
import bisect
import collections
import os
import re
import subprocess
import sys

# callgrind's name for the function that calls main (glibc 2.34+).
BELOW_MAIN = "__libc_start_call_main"


def debug_file(path):
    """The debug file of path under /usr/lib/debug/.build-id, or None."""
    out = subprocess.run(["readelf", "-n", path], capture_output=True,
                         text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if not m:
        return None
    bid = m.group(1)
    dbg = "/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:])
    return dbg if os.path.exists(dbg) else None


def text_range(path):
    """[start, end) of path's .text section (ELF addresses)."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True,
                         text=True).stdout
    m = re.search(r"\] \.text\s+PROGBITS\s+([0-9a-f]+) [0-9a-f]+ "
                  r"([0-9a-f]+)", out)
    if not m:
        return (0, 0)
    start = int(m.group(1), 16)
    return (start, start + int(m.group(2), 16))


def entry_point(path):
    """The ELF entry point of path."""
    out = subprocess.run(["readelf", "-hW", path], capture_output=True,
                         text=True).stdout
    m = re.search(r"Entry point address:\s+0x([0-9a-f]+)", out)
    return int(m.group(1), 16) if m else None


def page_crossers(path):
    """ELF addresses of the instructions of path that cross a 4 KiB page
    boundary (objdump)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         capture_output=True, text=True).stdout
    addrs = [int(m.group(1), 16) for m in
             re.finditer(r"^\s*([0-9a-f]+):\t", out, re.M)]
    return [a for a, b in zip(addrs, addrs[1:])
            if b > a and (a >> 12) != ((b - 1) >> 12)]


def containing_functions(offsets, table):
    """Offsets of the symbols that hold each of offsets."""
    starts = sorted(set(table.values()))
    out = set()
    for off in offsets:
        i = bisect.bisect_right(starts, off)
        if i:
            out.add(starts[i - 1])
    return out


def symbol_offsets(path, debug=True):
    """name -> offset of every text symbol of path (and its debug file)."""
    table = {}
    for f in filter(None, [path, debug and debug_file(path)]):
        for opt in ([], ["-D"]):
            out = subprocess.run(["nm", "--defined-only"] + opt + [f],
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TtWwi":
                    name = parts[2].split("@")[0]
                    table.setdefault(name, int(parts[0], 16))
    return table


class CallGraph:
    """callgrind's call edges: (caller, callee) -> [calls, inclusive Ir]."""

    def __init__(self, path):
        names = {"ob": {}, "fn": {}}
        self.edges = collections.defaultdict(lambda: [0, 0])
        ob = fn = cob = cfn = None
        pending = None              # the edge whose cost line is next

        def ref(kind, value):
            m = re.match(r"\((\d+)\)(?: (.*))?$", value)
            if not m:
                return value
            if m.group(2) is not None:
                names[kind][m.group(1)] = m.group(2)
            return names[kind].get(m.group(1))

        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if pending is not None:
                    if line[:1] in "0123456789+-*":
                        self.edges[pending][1] += int(line.split()[1])
                    pending = None
                    continue
                key, _, value = line.partition("=")
                if key == "ob":
                    ob = ref("ob", value)
                elif key == "fn":
                    fn = (ob, ref("fn", value))
                    cob = None
                elif key == "cob":
                    cob = ref("ob", value)
                elif key == "cfn":
                    cfn = (cob or ob, ref("fn", value))
                elif key == "calls":
                    pending = (fn, cfn)
                    self.edges[pending][0] += int(value.split()[0])
                    cob = None

    def valgrind_own(self):
        """Functions of valgrind's preloaded objects, and the stubs in
        no object ("???") that only they call."""
        own = {c for c, _ in self.edges if "/valgrind/" in (c[0] or "")}
        callers = collections.defaultdict(set)
        for c, d in self.edges:
            callers[d].add(c)
        grew = True
        while grew:
            grew = False
            for d, cs in callers.items():
                if d not in own and d[0] == "???" and cs <= own:
                    own.add(d)
                    grew = True
        return own

    def reached(self, sources):
        """Functions a call chain from one of sources reaches."""
        callees = collections.defaultdict(set)
        for c, d in self.edges:
            callees[c].add(d)
        seen, todo = set(), list(sources)
        while todo:
            for d in callees[todo.pop()]:
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        return seen

    def reaching(self, targets):
        """Functions from which a call chain reaches one of targets."""
        callers = collections.defaultdict(set)
        for c, d in self.edges:
            callers[d].add(c)
        seen, todo = set(targets), list(targets)
        while todo:
            for c in callers[todo.pop()]:
                if c not in seen:
                    seen.add(c)
                    todo.append(c)
        return seen


def callgrind_inclusive(path):
    """(object, function name) -> inclusive Ir, from callgrind_annotate."""
    incl = {}
    line_re = re.compile(r"^\s*([\d,]+) \([\d. %]+\)\s+(\S.*?)"
                         r"(?: \[(\S+)\])?$")
    with open(path) as f:
        for line in f:
            m = line_re.match(line)
            if not m or m.group(2) == "PROGRAM TOTALS":
                continue
            fn = m.group(2).rsplit(":", 1)[-1]
            incl[(m.group(3), fn)] = int(m.group(1).replace(",", ""))
    return incl


def cg_key(obj, fn, syms):
    """(object, offset) of a callgrind function, or None."""
    if fn is None or obj not in syms:
        return None
    syms = {o: t["all"] for o, t in syms.items()}
    if fn == "(below main)":
        fn = BELOW_MAIN
    fn = re.sub(r"'\d+$", "", fn).split("@")[0]
    if re.match(r"0x[0-9a-f]+$", fn):
        return (obj, int(fn, 16))
    off = syms[obj].get(fn)
    return (obj, off) if off is not None else None


def is_position_independent(path):
    """path is ET_DYN (a PIE program or a shared object): its ELF
    addresses start at 0 and it is loaded at a bias."""
    out = subprocess.run(["readelf", "-hW", path], capture_output=True,
                         text=True).stdout
    return re.search(r"Type:\s+DYN", out) is not None


def qtrace_images(path):
    """[(start, end, object, bias)] from image_map records: run-time
    address minus ELF address, 0 for a program linked at fixed
    addresses."""
    maps, bias = [], {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 11 and p[2] == "image_map":
                start, end, off = (int(p[i], 16) for i in (4, 6, 8))
                if p[10] not in bias:
                    bias[p[10]] = (start - off
                                   if is_position_independent(p[10]) else 0)
                maps.append((start, end, p[10]))
    return [(s, e, o, bias[o]) for s, e, o in maps]


def qtrace_key(name, images, syms, module=None):
    """(object, offset) of a function of qtrace's report, or None; module:
    the base name of its object, where the report gives one."""
    if name.endswith("@plt"):
        return None
    if module is not None:
        syms = {o: t for o, t in syms.items()
                if os.path.basename(o) == module}
    m = re.match(r"(.+)\+0x([0-9a-f]+)$", name)
    if m and "+" not in m.group(1):
        objs = [o for o in syms if os.path.basename(o) == m.group(1)]
        return (objs[0], int(m.group(2), 16)) if len(objs) == 1 else None
    if re.match(r"0x[0-9a-f]+$", name):
        pc = int(name, 16)
        for start, end, obj, base in reversed(images):
            if start <= pc < end and obj in syms:
                return (obj, pc - base)
        return None
    # The object's own symbols first: those are the ones qtrace names
    # from; a debug file also names private copies (ld.so's strlen).
    for level in ("own", "all"):
        found = [(o, t["all"][name]) for o, t in syms.items()
                 if name in t[level]]
        if found:
            return found[0] if len(found) == 1 else None
    return None


def qtrace_report(path, images, syms):
    """(object, offset) -> (calls, total, name) from report --functions."""
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) not in (4, 5) or not p[0].isdigit():
                continue
            # "NAME (MODULE)": a name that two objects define.
            module = p[4].strip("()") if len(p) == 5 else None
            key = qtrace_key(p[3], images, syms, module)
            if key is not None:
                out[key] = (int(p[2]), int(p[0]), p[3])
    return out


# glibc's string and memory functions: at load time glibc picks one of
# several implementations of each (IFUNC) from the CPU's features, and the
# CPU QEMU emulates is not the one valgrind shows; the path through one
# also depends on the addresses of its arguments (page crossings).
STRING_FAMILY = re.compile(r"^(__GI_|__)?(str|mem|wcs|wmem|stp|rawmemchr|"
                           r"bcmp|bzero|index|rindex)")


def read_exits(path, images, syms):
    """kind -> keys of the functions with a func_exit of that kind, from
    "KIND NAME" lines."""
    out = collections.defaultdict(set)
    with open(path) as f:
        for line in f:
            kind, _, name = line.strip().partition(" ")
            key = qtrace_key(name, images, syms)
            if key is not None:
                out[kind].add(key)
    return out


def callgrind_side(graph, annotate, syms, crossing):
    """(object, offset) -> (calls, inclusive, name, rule): rule says why
    the inclusive count is not compared ("" when it is). crossing: keys
    of the functions with a page-crossing instruction."""
    own = graph.valgrind_own()
    calls = collections.Counter()
    extra = collections.Counter()   # inclusive Ir valgrind's own calls add
    for (c, d), (n, cost) in graph.edges.items():
        if c in own:
            extra[d] += cost
        else:
            calls[d] += n
    variants = {d for _, d in graph.edges
                if d[1] and (STRING_FAMILY.match(d[1]) or
                             d[1].startswith("_dl_runtime_resolve"))}
    dependent = graph.reaching(variants)
    crossed = graph.reaching({f for pair in graph.edges for f in pair
                              if cg_key(f[0], f[1], syms) in crossing})
    below_own = graph.reached({d for (c, d) in graph.edges if c in own})
    incl = callgrind_inclusive(annotate)
    # callgrind_annotate adds up the functions of one name and source file
    # in every object: ld.so has private copies of some of libc's.
    objects_of = collections.defaultdict(set)
    for c, d in graph.edges:
        objects_of[c[1]].add(c[0])
        objects_of[d[1]].add(d[0])
    out = {}
    for d, n in calls.items():
        key = cg_key(d[0], d[1], syms)
        if key is None or n == 0:
            continue
        if d in below_own and not extra[d]:
            rule = "reached from valgrind's preload"
        elif d in dependent:
            rule = "CPU-dependent code below"
        elif len(objects_of[d[1]]) > 1:
            rule = "one name in two objects"
        elif d in crossed:
            rule = "page-crossing instruction below"
        else:
            rule = ""
        out[key] = (n, incl.get(d, 0) - extra[d], d[1], rule)
    return out


def in_text(key, texts):
    start, end = texts[key[0]]
    return start <= key[1] < end


def is_string_family(key, syms):
    """One of the names at key's address is a string or memory function."""
    table = syms[key[0]]["all"]
    return any(off == key[1] and STRING_FAMILY.match(name)
               for name, off in table.items())


def main(argv):
    cg_out, annotate, report, maps_path, exits_path = argv[1:6]
    objects = argv[6:]
    images = qtrace_images(maps_path)
    syms = {o: {"own": symbol_offsets(o, False), "all": symbol_offsets(o)}
            for o in {i[2] for i in images} | set(objects)}
    texts = {o: text_range(o) for o in objects}
    entries = {(o, entry_point(o)) for o in objects}
    crossing = {(o, f) for o in objects
                for f in containing_functions(page_crossers(o),
                                              syms[o]["all"])}
    cg = callgrind_side(CallGraph(cg_out), annotate, syms, crossing)
    qt = qtrace_report(report, images, syms)
    cg = {k: v for k, v in cg.items() if k[0] in objects and
          in_text(k, texts) and k not in entries}
    qt = {k: v for k, v in qt.items() if k[0] in objects and
          in_text(k, texts) and k not in entries}
    strings = {k for k in set(cg) | set(qt) if is_string_family(k, syms)}
    cg = {k: v for k, v in cg.items() if k not in strings}
    qt = {k: v for k, v in qt.items() if k not in strings}
    exits = read_exits(exits_path, images, syms)
    agree = differ = calls_only = skipped = 0
    for key in sorted(set(cg) & set(qt)):
        c, q = cg[key], qt[key]
        rule = c[3] or ("tail call" if key in exits["2"] else
                        "open at exit" if key in exits["3"] else "")
        if rule == "reached from valgrind's preload":
            skipped += 1
            print("skipped %s+0x%x %s: %s" % (os.path.basename(key[0]),
                                              key[1], c[2], rule))
            continue
        same = c[0] == q[0] and (bool(rule) or c[1] == q[1])
        agree += same
        differ += not same
        calls_only += same and bool(rule)
        print("%s %s+0x%x %s: callgrind %d calls %d incl, qtrace %d calls "
              "%d incl%s" % ("agree" if same else "differ",
                             os.path.basename(key[0]), key[1], c[2], c[0],
                             c[1], q[0], q[1],
                             " (calls only: %s)" % rule if rule else ""))
    for key in sorted(set(qt) - set(cg)):
        print("qtrace-only %s+0x%x %s: %d calls" %
              (os.path.basename(key[0]), key[1], qt[key][2], qt[key][0]))
    debug_only = 0
    for key in sorted(set(cg) - set(qt)):
        own = any(off == key[1] for off in syms[key[0]]["own"].values())
        debug_only += not own
        print("callgrind-only %s+0x%x %s: %d calls%s" %
              (os.path.basename(key[0]), key[1], cg[key][2], cg[key][0],
               "" if own else " (named by the debug file only)"))
    print("functions: %d compared, %d agree (%d on calls only), %d differ, "
          "%d skipped, %d string functions left out, %d qtrace only, "
          "%d callgrind only (%d named by debug files only)" %
          (agree + differ, agree, calls_only, differ, skipped, len(strings),
           len(set(qt) - set(cg)), len(set(cg) - set(qt)), debug_only))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
