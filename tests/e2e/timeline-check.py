#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check the timeline a trace viewer would build from `qtrace convert
--to chrome` (Chrome trace-event JSON, read with Python's json) or
`--to perfetto` (the text protoc --decode prints of it, with the small
schema perfetto-min.proto written from Perfetto's field numbers), and
print what it holds as lines the end-to-end tests compare:

  ok                          every structural rule held (else: FAIL ...)
  tracks S:NAME ...           the thread tracks, by stream (tid)
  tree TID d:name,...         calls of the chosen functions per track,
                              d counting the chosen functions around it
  calls name=N ...            begun slices of the chosen functions
  syscalls name=N ...         system call slices by name
  instants name=N ...         instants by event name
  arg EVENT#K NAME=VALUE      an argument of the K-th instant of EVENT
                              (K "*": of each), or of the K-th system
                              call slice when EVENT is "syscall" (its
                              end's arguments included)

Rules checked: slices nest per track (an end closes the innermost open
slice, none left open), times never go back on a track (in file order),
and for perfetto: each sequence starts with its incremental state
cleared and every other packet needs it, every interned id is defined on
its sequence before it is used and means one string everywhere, no
string is interned twice on one sequence, every event's track was
described before.

Usage: timeline-check.py chrome FILE.json "NAMES" [EVENT#K...]
       timeline-check.py perfetto DECODED.txt "NAMES" [EVENT#K...]
"""
import collections
import json
import re
import sys

errors = []


def fail(msg):
    if len(errors) < 10:
        errors.append(msg)


class Track:
    def __init__(self):
        self.stack = []
        self.last = None
        self.tree = []


def feed(tracks, key, kind, ts, name, chosen, calls):
    """One slice begin/end or instant of track key, in file order."""
    t = tracks.setdefault(key, Track())
    if t.last is not None and ts < t.last:
        fail("track %s: time %s after %s" % (key, ts, t.last))
    t.last = ts
    if kind == "B":
        depth = sum(1 for n in t.stack if n in chosen)
        if name in chosen:
            t.tree.append("%d:%s" % (depth, name))
            calls[name] += 1
        t.stack.append(name)
    elif kind == "E":
        if not t.stack:
            fail("track %s: end at %s with no open slice" % (key, ts))
        else:
            t.stack.pop()


# ---- chrome ----

def chrome(path, chosen):
    raw = open(path, "rb").read()
    if not raw.startswith(b'{"displayTimeUnit":"ns"'):
        fail("displayTimeUnit is not the first key")
    doc = json.loads(raw.decode("utf-8"))
    if "clock" not in doc.get("otherData", {}):
        fail("no otherData.clock")
    if list(doc.keys())[-1] != "traceEvents":
        fail("traceEvents is not the last key")
    tracks, names, calls = {}, {}, collections.Counter()
    syscalls, instants, args = collections.Counter(), collections.Counter(), {}
    open_names = {}
    for e in doc["traceEvents"]:
        ph = e["ph"]
        if ph == "M":
            if e["name"] == "thread_name":
                names[e["tid"]] = e["args"]["name"]
            continue
        # Perfetto and chrome://tracing read ts as microseconds.
        ts = round(float(e["ts"]) * 1000)
        key = e.get("tid", "process")
        if ph == "B":
            feed(tracks, key, "B", ts, e["name"], chosen, calls)
            slice_args = dict(e.get("args", {}))
            open_names.setdefault(key, []).append(slice_args)
            if e.get("cat") == "syscall":
                syscalls[e["name"]] += 1
                args.setdefault("syscall", []).append(slice_args)
        elif ph == "E":
            feed(tracks, key, "E", ts, None, chosen, calls)
            if open_names.get(key):
                open_names[key].pop().update(e.get("args", {}))
        elif ph == "i":
            if e.get("s") not in ("t", "p"):
                fail("instant without scope t or p")
            if ":" in e["name"] and e.get("cat") != e["name"].split(":")[0]:
                fail("%s: category %s" % (e["name"], e.get("cat")))
            instants[e["name"]] += 1
            args.setdefault(e["name"], []).append(e.get("args", {}))
        else:
            fail("unexpected phase %s" % ph)
    return tracks, names, calls, syscalls, instants, args


# ---- perfetto (protoc --decode text) ----

TOKEN = re.compile(r'\s*(?:(\})|([A-Za-z_0-9]+)\s*(?:(\{)|:\s*(.*)))\s*$')


def unquote(v):
    if not v.startswith('"'):
        return int(v, 0) if re.match(r"^-?(0x)?[0-9a-fA-F]+$", v) else v
    body = v[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            n = body[i + 1]
            if n in "01234567":
                j = i + 1
                while j < len(body) and j < i + 4 and body[j] in "01234567":
                    j += 1
                out.append(int(body[i + 1:j], 8))
                i = j
                continue
            out += {"n": b"\n", "t": b"\t", "r": b"\r", '"': b'"',
                    "'": b"'", "\\": b"\\"}.get(n, n.encode())
            i += 2
            continue
        out += c.encode()
        i += 1
    return out.decode("utf-8", "replace")


def parse_text(lines):
    """protoc's text format into nested [(name, value-or-list)] lists."""
    root = []
    stack = [root]
    for line in lines:
        if not line.strip():
            continue
        m = TOKEN.match(line)
        if not m:
            raise SystemExit("bad protoc line: %r" % line)
        if m.group(1):
            stack.pop()
        elif m.group(3):
            child = []
            stack[-1].append((m.group(2), child))
            stack.append(child)
        else:
            stack[-1].append((m.group(2), unquote(m.group(4))))
    return root


def get(msg, name, default=None):
    for k, v in msg:
        if k == name:
            return v
    return default


def get_all(msg, name):
    return [v for k, v in msg if k == name]


def perfetto(path, chosen):
    packets = get_all(parse_text(open(path, encoding="utf-8")), "packet")
    iid_str = {}            # (table, iid) -> string, for the whole file
    seq_iids = collections.defaultdict(set)   # (seq, table) -> iids
    seen_seq = set()
    uuids = {}
    tracks, names, calls = {}, {}, collections.Counter()
    syscalls, instants, args = collections.Counter(), collections.Counter(), {}
    open_args = {}
    for p in packets:
        for k, _ in p:
            if re.match(r"^[0-9]+$", k):
                fail("field %s unknown to the schema" % k)
        seq = get(p, "trusted_packet_sequence_id")
        flags = get(p, "sequence_flags")
        if seq is None:
            fail("packet without a sequence id")
        if seq not in seen_seq:
            if flags != 1:
                fail("sequence %s: first packet flags %s" % (seq, flags))
            seen_seq.add(seq)
        elif flags != 2:
            fail("sequence %s: packet flags %s, not 2" % (seq, flags))
        interned = get(p, "interned_data", [])
        for table in ("event_names", "event_categories",
                      "debug_annotation_names"):
            for entry in get_all(interned, table):
                iid, s = get(entry, "iid"), get(entry, "name")
                if iid in seq_iids[(seq, table)]:
                    fail("sequence %s: %s iid %s interned twice"
                         % (seq, table, iid))
                seq_iids[(seq, table)].add(iid)
                if iid_str.setdefault((table, iid), s) != s:
                    fail("%s iid %s means two strings" % (table, iid))

        def lookup(table, iid):
            if iid not in seq_iids[(seq, table)]:
                fail("sequence %s: %s iid %s used before defined"
                     % (seq, table, iid))
            return iid_str.get((table, iid), "?")

        td = get(p, "track_descriptor")
        if td is not None:
            uuid = get(td, "uuid")
            uuids[uuid] = td
            th = get(td, "thread")
            if th is not None:
                names[get(th, "tid")] = get(th, "thread_name")
        te = get(p, "track_event")
        if te is None:
            continue
        uuid = get(te, "track_uuid")
        if uuid not in uuids:
            fail("event on undescribed track %s" % uuid)
            continue
        th = get(uuids[uuid], "thread")
        key = get(th, "tid") if th is not None else "process"
        typ = get(te, "type")
        ts = get(p, "timestamp", 0)
        name = lookup("event_names", get(te, "name_iid")) \
            if get(te, "name_iid") is not None else None
        cats = [lookup("event_categories", c)
                for c in get_all(te, "category_iids")]
        ev_args = {}
        for da in get_all(te, "debug_annotations"):
            an = lookup("debug_annotation_names", get(da, "name_iid"))
            for k, v in da:
                if k.endswith("_value"):
                    ev_args[an] = ("0x%x" % v) if k == "pointer_value" else v
        if typ == "TYPE_SLICE_BEGIN":
            feed(tracks, key, "B", ts, name, chosen, calls)
            open_args.setdefault(key, []).append(ev_args)
            if "syscall" in cats:
                syscalls[name] += 1
                args.setdefault("syscall", []).append(ev_args)
        elif typ == "TYPE_SLICE_END":
            feed(tracks, key, "E", ts, None, chosen, calls)
            if open_args.get(key):
                open_args[key].pop().update(ev_args)
        elif typ == "TYPE_INSTANT":
            feed(tracks, key, "i", ts, name, chosen, calls)
            if ":" in name and cats != [name.split(":")[0]]:
                fail("%s: categories %s" % (name, cats))
            instants[name] += 1
            args.setdefault(name, []).append(ev_args)
        else:
            fail("event type %s" % typ)
    return tracks, names, calls, syscalls, instants, args


def counts(c):
    return " ".join("%s=%d" % (k, c[k]) for k in sorted(c))


def main():
    kind, path, chosen = sys.argv[1], sys.argv[2], set(sys.argv[3].split())
    tracks, names, calls, syscalls, instants, args = \
        (chrome if kind == "chrome" else perfetto)(path, chosen)
    for key, t in tracks.items():
        if t.stack:
            fail("track %s: %d slices left open" % (key, len(t.stack)))
    print("ok" if not errors else "FAIL " + "; ".join(errors))
    print("tracks " + " ".join("%s:%s" % (k, names[k])
                               for k in sorted(names)))
    for key in sorted(tracks, key=str):
        if tracks[key].tree:
            print("tree %s %s" % (key, ",".join(tracks[key].tree)))
    print("calls " + counts(calls))
    print("syscalls " + counts(syscalls))
    print("instants " + counts(instants))
    for want in sys.argv[4:]:
        ev, k = want.split("#")
        got = args.get(ev, [])
        for i in range(len(got)) if k == "*" else [int(k)]:
            for n, v in (got[i].items() if i < len(got) else []):
                print("arg %s#%d %s=%s" % (ev, i, n, v))


if __name__ == "__main__":
    main()
