#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# report -j and convert -j decode the trace on a thread of the reader's
# own (and dump from -j 3): on a packed trace of blocks, predicted
# accesses, system calls and function records of the demo guest of ARCH
# in many small chunks, one, two and four threads give the same bytes
# and the same status for every report section (text and json) and for
# the etrace and chrome conversions (read back by python3's json for
# chrome); a trace cut inside a chunk gives the same output, message and
# status; bad -j values are refused.
ARCH=$1
. "$(dirname "$0")/lib.sh"

use_guest demo "$ARCH"
env -i "$QTRACE" record \
    -e 'tb_trans,exec_tb,mem_access,syscall,syscall_ret,func_*' \
    -O chunk=64K -o "$WORK/t.qtr" -- "$GUEST" > /dev/null 2>&1
check_eq "record status" 0 "$?"
chunks=$("$QTRACE" info "$WORK/t.qtr" | sed -n 's/^chunks: //p')
check_eq "several chunks" yes "$([ "${chunks:-0}" -gt 8 ] && echo yes)"

# same NAME FILE CMD...: CMD with -j 1, 2 and 4 inserted after its first
# word prints the same (FILE: its output file, or - for stdout).
same() {
    name=$1
    out=$2
    shift 2
    sub=$1
    shift
    for j in 1 2 4; do
        rm -f "$WORK/o.$j"
        if [ "$out" = - ]; then
            "$QTRACE" "$sub" -j "$j" "$@" > "$WORK/o.$j" 2> "$WORK/e.$j"
        else
            "$QTRACE" "$sub" -j "$j" "$@" "$WORK/o.$j" > /dev/null \
                2> "$WORK/e.$j"
        fi
        echo $? > "$WORK/s.$j"
    done
    # A cut may fall before the first record shown: no output is due.
    case $name in
    cut:*) ;;
    *) check_eq "$name: some output" yes \
           "$([ -s "$WORK/o.1" ] && echo yes || echo no)" ;;
    esac
    for j in 2 4; do
        if cmp -s "$WORK/o.1" "$WORK/o.$j"; then
            pass "$name: -j $j gives what -j 1 gives"
        else
            fail "$name: -j $j differs from -j 1"
            diff "$WORK/o.1" "$WORK/o.$j" | head -5
        fi
        check_eq "$name: -j $j status" "$(cat "$WORK/s.1")" \
            "$(cat "$WORK/s.$j")"
        check_eq "$name: -j $j messages" "$(cat "$WORK/e.1")" \
            "$(cat "$WORK/e.$j")"
    done
}

same "report" - report "$WORK/t.qtr"
check_eq "report: status" 0 "$(cat "$WORK/s.1")"
check_grep "report: the memory section" "[Mm]emory" "$WORK/o.1"
same "report --memory --vcpus json" - report --memory --vcpus \
    --format=json "$WORK/t.qtr"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/o.4"
check_eq "report json: python3 reads it" 0 "$?"
same "report --folded" - report --folded "$WORK/t.qtr"
same "convert etrace" file convert --to etrace "$WORK/t.qtr"
same "convert chrome" file convert -e '*' --to chrome "$WORK/t.qtr"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/o.4"
check_eq "convert chrome: python3 reads it" 0 "$?"
same "dump" - dump "$WORK/t.qtr"
records=$("$QTRACE" info "$WORK/t.qtr" | sed -n 's/^total: //p')
check_eq "dump: one line per record" "$records" "$(wc -l < "$WORK/o.4")"

# Cut inside a chunk: everything before it, then the same warning.
size=$(wc -c < "$WORK/t.qtr")
head -c $((size * 3 / 4 + 123)) "$WORK/t.qtr" > "$WORK/cut.qtr"
same "cut: report" - report --vcpus --memory "$WORK/cut.qtr"
check_grep "cut: report says where" "truncated" "$WORK/e.4"
same "cut: convert" file convert --to etrace "$WORK/cut.qtr"
same "cut: dump" - dump "$WORK/cut.qtr"
check_eq "cut: dump status" yes \
    "$([ "$(cat "$WORK/s.4")" -ne 0 ] && echo yes || echo no)"

for bad in 0 65 two; do
    "$QTRACE" report -j "$bad" "$WORK/t.qtr" > /dev/null 2> "$WORK/bad.err"
    check_eq "report -j $bad: usage status" 2 "$?"
    check_grep "report -j $bad: says why" "from 1 to 64" "$WORK/bad.err"
    "$QTRACE" convert -j "$bad" --to etrace "$WORK/t.qtr" "$WORK/x" \
        > /dev/null 2> "$WORK/bad.err"
    check_eq "convert -j $bad: usage status" 2 "$?"
    check_grep "convert -j $bad: says why" "from 1 to 64" "$WORK/bad.err"
done
finish
