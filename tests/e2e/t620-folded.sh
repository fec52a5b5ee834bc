#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# report --folded and flamegraph on the calls guest of ARCH (and its
# dynamic build, where there is one). The folded stacks are read here by
# the format's own rules (frames split at ';', the count after the last
# space) and must agree with what other commands count in their own way:
#   - per function, the lines ending in it add up to its SELF in
#     report --functions, and the lines holding it (each once) to its
#     TOTAL;
#   - all lines add up to the instructions of every stream, counted from
#     dump's blocks and their sizes (and to info's total); with
#     --per-stream, each stream's root to its own;
#   - the call tree of calls.c's header comment is there (five nested
#     fact frames under main, work_item under worker).
# flamegraph writes a well-formed SVG with those counts, refuses to
# overwrite what is not one, and says when there is nothing to draw.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
cd "$WORK" || exit 1

# check_same WHAT EXPECTED_FILE ACTUAL_FILE: the same lines.
check_same() {
    if cmp -s "$2" "$3"; then
        pass "$1 ($(wc -l < "$2") lines)"
    else
        fail "$1:"
        diff "$2" "$3" | head -5 | sed 's/^/    /'
    fi
}

# self FOLDED: "NAME SELF" per function, sorted; total FOLDED likewise.
self() {
    awk '{ c = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";")
           s[f[n]] += c }
         END { for (k in s) print k "|" s[k] }' "$1" | sort
}
total() {
    awk '{ c = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";")
           delete seen
           for (i = 1; i <= n; i++) if (!(f[i] in seen)) {
               seen[f[i]] = 1; t[f[i]] += c } }
         END { for (k in t) print k "|" t[k] }' "$1" | sort
}
# report_col REPORT COLUMN: "NAME|VALUE" per function of report
# --functions (COLUMN 1 TOTAL, 2 SELF), sorted.
report_col() {
    awk -v col="$2" 'NR > 2 { v = $col; $1 = ""; $2 = ""; $3 = ""
                              sub(/^ +/, ""); print $0 "|" v }' "$1" | sort
}
# insns_per_vcpu DUMP: "vcpu N INSNS" from the blocks and their sizes.
insns_per_vcpu() {
    awk '$3 == "tb_trans" { n[$7] = $11 }
         $3 == "exec_tb" { s[$1] += n[$7] }
         END { for (v in s) print "vcpu " v, s[v] }' "$1" | sort
}

# check_trace NAME GUEST: the folded stacks of GUEST's trace against
# report --functions and dump.
check_trace() {
    t="$1.qtr"
    "$QTRACE" record -e 'vcpu_*,tb_trans,exec_tb,func_*,syscall*' -o "$t" \
        -- "$2" > /dev/null 2>&1
    "$QTRACE" report --folded "$t" > "$1.folded" 2> "$1.err"
    check_eq "$1: report --folded status" 0 "$?"
    check_eq "$1: report --folded stderr" "" "$(cat "$1.err")"
    check_eq "$1: lines not of the folded form" 0 \
        "$(grep -Evc '^[^;]+(;[^;]+)* [1-9][0-9]*$' "$1.folded")"
    "$QTRACE" report --functions "$t" > "$1.functions"
    self "$1.folded" | grep -v "^$(basename "$2")|" > "$1.self"
    report_col "$1.functions" 2 > "$1.rself"
    check_same "$1: self instructions per function = report's SELF" \
        "$1.rself" "$1.self"
    total "$1.folded" | grep -v "^$(basename "$2")|" > "$1.total"
    report_col "$1.functions" 1 > "$1.rtotal"
    check_same "$1: instructions under each function = report's TOTAL" \
        "$1.rtotal" "$1.total"
    "$QTRACE" dump "$t" > "$1.dump"
    insns_per_vcpu "$1.dump" > "$1.insns"
    check_eq "$1: all lines = the streams' instructions from dump" \
        "$(awk '{ s += $3 } END { print s }' "$1.insns")" \
        "$(awk '{ s += $NF } END { print s }' "$1.folded")"
    check_eq "$1: ... = info's instructions" \
        "$(sed -n 's/^instructions: //p' "$("$QTRACE" info "$t" \
           > "$1.info"; echo "$1.info")")" \
        "$(awk '{ s += $NF } END { print s }' "$1.folded")"
}

check_trace calls "$GUEST"
F=calls.folded
ROOT=$(basename "$GUEST")
check_eq "root frame: the program" "$ROOT" \
    "$(sed 's/ [0-9]*$//' "$F" | cut -d';' -f1 | sort -u)"
check_grep "five nested fact frames under main" \
    ';main;fact;fact;fact;fact;fact [0-9]+$' "$F"
check_eq "no sixth" 0 "$(grep -c ';fact;fact;fact;fact;fact;fact' "$F")"
check_grep "work_item under worker" ';worker;work_item [0-9]+$' "$F"
check_grep "in_handler under on_signal" ';on_signal;in_handler [0-9]+$' "$F"
sed 's/ [0-9]*$//' "$F" > stacks
sort -u stacks > stacks.uniq
check_eq "each stack once" "$(wc -l < stacks)" "$(wc -l < stacks.uniq)"

# --per-stream: a root per stream, holding that stream's instructions
# (calls.c's threads each run on a vCPU of their own).
"$QTRACE" report --folded --per-stream calls.qtr > per.folded
awk '{ c = $NF; split($0, f, ";"); sub(/ [0-9]+$/, "", f[1]); s[f[1]] += c }
     END { for (k in s) print k, s[k] }' per.folded |
    sed -n 's/^.* \[stream [0-9]*, vcpu \([0-9]*\)\] \([0-9]*\)$/vcpu \1 \2/p' |
    sort > per.roots
check_eq "--per-stream: three roots" 3 "$(wc -l < per.roots)"
check_eq "--per-stream: each root = its stream's instructions from dump" \
    "$(cat calls.insns)" "$(cat per.roots)"
# below_roots FOLDED: "STACK|COUNT" of the stacks under the roots.
below_roots() {
    grep ';' "$1" | sed 's/^[^;]*;//' |
        awk '{ c = $NF; sub(/ [0-9]+$/, ""); s[$0] += c }
             END { for (k in s) print k "|" s[k] }' | sort
}
below_roots "$F" > below.one
below_roots per.folded > below.per
check_same "--per-stream: the same stacks below the roots" below.one below.per

# The same stacks as a table: JSON rows and CSV lines equal the text's.
"$QTRACE" report --folded --format=json calls.qtr > folded.json
"$QTRACE" report --folded --format=csv calls.qtr > folded.csv
check_eq "--format=json: the text's stacks and counts" "$(cat "$F")" \
    "$(python3 -c 'import json, sys
for r in json.load(open(sys.argv[1])): print(r["stack"], r["instructions"])' folded.json)"
check_eq "--format=csv: the text's stacks and counts" "$(cat "$F")" \
    "$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("\n".join(r["stack"] + " " + r["instructions"] for r in rows))' folded.csv)"

# A bare report prints no folded stacks; an empty trace says so.
"$QTRACE" report calls.qtr > bare.out
check_eq "bare report: no folded lines" 0 "$(grep -c "^$ROOT" bare.out)"
"$QTRACE" record -e 'vcpu_*,tb_trans,exec_tb' -o nofunc.qtr -- "$GUEST" \
    > /dev/null 2>&1
"$QTRACE" report --folded nofunc.qtr > nofunc.out
check_eq "no func records: status" 1 "$?"
check_eq "no func records: the line" \
    "folded: none (no func_entry records; record them with -e 'func_*')" \
    "$(cat nofunc.out)"

# flamegraph: an SVG with the same instructions, frames and titles.
"$QTRACE" flamegraph -o calls.svg --min-width=0 calls.qtr 2> fg.err
check_eq "flamegraph status" 0 "$?"
check_eq "flamegraph stderr" "" "$(cat fg.err)"
python3 - calls.svg "$F" > svg.check <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = {'s': 'http://www.w3.org/2000/svg'}
root = ET.parse(sys.argv[1]).getroot()
frames = root.findall('.//s:g[@class="f"]', ns)
stacks = {}
for line in open(sys.argv[2]):
    fr, c = line.rstrip('\n').rsplit(' ', 1)
    parts = fr.split(';')
    for i in range(1, len(parts) + 1):
        k = tuple(parts[:i])
        stacks[k] = stacks.get(k, 0) + int(c)
total = sum(v for k, v in stacks.items() if len(k) == 1)
print('total', root.get('data-total') == str(total))
print('frames', len(frames) == len(stacks))
titles = sorted(f.find('s:title', ns).text for f in frames)
want = sorted('%s (%d instructions, %.2f%%)' % (k[-1], v, 100.0 * v / total)
              for k, v in stacks.items())
print('titles', titles == want)
print('script', root.find('s:script', ns) is not None)
EOF
check_eq "flamegraph: data-total, one frame per stack, titles, script" \
    "total True
frames True
titles True
script True" "$(cat svg.check)"
echo "not a graph" > notes.txt
"$QTRACE" flamegraph -o notes.txt calls.qtr 2> fg.err
check_eq "flamegraph over a text file: status" 1 "$?"
check_eq "flamegraph over a text file: message" \
    "qtrace flamegraph: notes.txt: exists and is not an SVG file (not overwritten; use --force to replace it)" \
    "$(cat fg.err)"
check_eq "flamegraph over a text file: left alone" "not a graph" \
    "$(cat notes.txt)"
"$QTRACE" flamegraph -o calls.svg calls.qtr
check_eq "flamegraph over its own SVG: status" 0 "$?"
"$QTRACE" flamegraph -o empty.svg nofunc.qtr 2> fg.err
check_eq "flamegraph without func records: status" 1 "$?"
check_eq "flamegraph without func records: message" \
    "qtrace flamegraph: nofunc.qtr: none (no func_entry records; record them with -e 'func_*')" \
    "$(cat fg.err)"
check_eq "flamegraph without func records: no file" "" \
    "$(ls empty.svg .empty.svg* 2> /dev/null)"

# The dynamic build: PLT stubs folded as report --functions folds them.
DYN="$GUESTS/calls-dyn-$ARCH"
if [ -x "$DYN" ]; then
    check_trace dyn "$DYN"
    check_eq "dyn: no frame of a PLT stub's entry" 0 \
        "$(grep -Ec '@plt(;| )' dyn.folded)"
else
    echo "SKIP dynamic part: calls-dyn-$ARCH not built"
fi
finish
