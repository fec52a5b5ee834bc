#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# uftrace output of the calls guest of ARCH, from `qtrace convert --to
# uftrace` and from the plugin's uftrace= sink in the same run: uftrace's
# own replay, report, graph, info and dump --chrome read both directories
# and name the guest's functions in the call tree and with the call
# counts the guest's source gives.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/calls.sh"
use_guest calls "$ARCH"
command -v uftrace > /dev/null 2>&1 ||
    skip "uftrace not installed (Debian package uftrace)"
command -v python3 > /dev/null 2>&1 ||
    skip "python3 not installed (Debian package python3)"
MAIN=$(calls_main "$ARCH")
# `uftrace graph MAIN`: "CALLS NAME" of the guest's functions, in order.
GRAPH_MAIN="1 $MAIN,1 fact,1 fact,1 fact,1 fact,1 fact,2 apply,1 add_one"
GRAPH_MAIN="$GRAPH_MAIN,1 twice,1 jump_outer,1 jump_middle,1 jump_inner"
GRAPH_MAIN="$GRAPH_MAIN,1 after_jump,1 raise_signal,1 on_signal"
GRAPH_MAIN="$GRAPH_MAIN,1 in_handler,1 run_threads"

T="$WORK/t.qtr"
"$QTRACE" record -e 'func_*,image_map,vcpu_*' -O "uftrace=$WORK/sink" \
    -o "$T" -- "$GUEST" > "$WORK/guest.out" 2> "$WORK/guest.err"
check_eq "guest exit status" 0 "$?"
check_eq "guest output" "calls: ok" "$(cat "$WORK/guest.out")"
"$QTRACE" convert --to uftrace "$T" "$WORK/conv" 2> "$WORK/convert.err"
check_eq "convert status" 0 "$?"
check_eq "convert messages" "" "$(cat "$WORK/convert.err")"

# The sink and the converter share the writer and saw the same records.
same=$(cd "$WORK/conv" && for f in *.dat *.sym sid-0.map task.txt info; do
           cmp -s "$f" "$WORK/sink/$f" || echo "$f"; done)
check_eq "files differing between sink and converter" "" "$same"

# Chrome trace events: JSON, and "B"/"E" counts per guest function.
chrome_counts() {
    python3 - "$1" $CALLS_FUNCS <<'PY'
import collections, json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
begin = collections.Counter(e["name"] for e in events if e.get("ph") == "B")
end = collections.Counter(e["name"] for e in events if e.get("ph") == "E")
out = []
for name in sys.argv[2:]:
    if begin[name] or end[name]:
        out.append("%s=%d" % (name, begin[name]))
        if begin[name] != end[name]:
            out.append("%s:unbalanced" % name)
print(" ".join(sorted(out)))
PY
}

check_dir() {
    dir=$WORK/$1
    uftrace info -d "$dir" > "$dir.info" 2>&1
    check_eq "$1: uftrace info status" 0 "$?"
    check_grep "$1: info counts 3 tasks" '^# number of tasks +: 3$' "$dir.info"
    check_grep "$1: info names the guest" "^# exe image +: $GUEST\$" "$dir.info"

    uftrace replay -d "$dir" > "$dir.replay" 2>&1
    check_eq "$1: uftrace replay status" 0 "$?"
    check_tree "$1: uftrace replay" "$dir.replay"

    uftrace report -d "$dir" > "$dir.report" 2>&1
    check_eq "$1: uftrace report status" 0 "$?"
    check_eq "$1: uftrace report calls" "$CALLS_COUNTS" \
        "$(calls_counts "$dir.report")"

    uftrace graph -d "$dir" "$MAIN" > "$dir.graph" 2>&1
    check_eq "$1: uftrace graph status" 0 "$?"
    check_eq "$1: uftrace graph of $MAIN" "$GRAPH_MAIN" \
        "$(awk -v names="$CALLS_FUNCS $MAIN" -f "$E2E_DIR/graph.awk" \
           "$dir.graph")"
    uftrace graph -d "$dir" worker > "$dir.graph-w" 2>&1
    check_eq "$1: uftrace graph of worker" "2 worker,2 work_item" \
        "$(awk -v names="$CALLS_FUNCS" -f "$E2E_DIR/graph.awk" "$dir.graph-w")"

    uftrace dump --chrome -d "$dir" > "$dir.json" 2> "$dir.json.err"
    check_eq "$1: uftrace dump --chrome status" 0 "$?"
    python3 -m json.tool "$dir.json" > /dev/null 2>&1
    check_eq "$1: dump --chrome is valid JSON" 0 "$?"
    check_eq "$1: chrome begin events" "$CALLS_COUNTS" \
        "$(chrome_counts "$dir.json")"
}

check_dir conv
check_dir sink

# The plugin alone: uftrace= makes no native trace unless out= asks.
(cd "$WORK" && "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,uftrace=alone" \
     "$GUEST" > /dev/null 2>&1)
check_eq "plugin alone: guest status" 0 "$?"
check_eq "plugin alone: native trace written" no \
    "$(if [ -e "$WORK/qtrace.qtr" ]; then echo yes; else echo no; fi)"
uftrace replay -d "$WORK/alone" > "$WORK/alone.replay" 2>&1
check_tree "plugin alone: uftrace replay" "$WORK/alone.replay"

# A directory that cannot be made stops QEMU at load, naming it.
"$QTRACE" record -O "uftrace=$WORK/no/such" -o "$WORK/x.qtr" -- "$GUEST" \
    > /dev/null 2> "$WORK/bad.err"
check_eq "uftrace=BAD: status" 1 "$?"
check_grep "uftrace=BAD: message" \
    "^qtrace: uftrace=$WORK/no/such: No such file or directory\$" \
    "$WORK/bad.err"
finish
