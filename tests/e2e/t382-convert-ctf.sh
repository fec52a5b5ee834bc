#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `qtrace convert --to ctf` on the calls guest of ARCH with blocks,
# translations, accesses, calls, system calls and lifecycle records:
# babeltrace2 reads the directory without a warning, and what it prints
# is qtrace dump's listing of the same trace, event by event, stream by
# stream: same names, same times (the instruction clock, printed with
# --clock-cycles), same field values (ctf-compare.py); one data stream
# file per vCPU stream, whose cpu_id and qtrace_stream are the vCPU and
# stream qtrace info lists; the counts per event are qtrace info's.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"
command -v babeltrace2 > /dev/null 2>&1 ||
    skip "babeltrace2 not installed (Debian package babeltrace2)"
command -v python3 > /dev/null 2>&1 ||
    skip "python3 not installed (Debian package python3)"
HERE=$(dirname "$0")

T="$WORK/t.qtr"
"$QTRACE" record \
    -e 'func_*,image_map,vcpu_*,syscall*,exec_tb,tb_trans,mem_access' \
    -o "$T" -- "$GUEST" > /dev/null 2>&1
check_eq "guest exit status" 0 "$?"
"$QTRACE" convert --to ctf "$T" "$WORK/ctf" 2> "$WORK/err"
check_eq "convert status" 0 "$?"
check_eq "convert messages" "" "$(cat "$WORK/err")"
"$QTRACE" info --per-cpu "$T" > "$WORK/percpu"
want_files="global metadata $(awk '$1 == "vcpu" && $3 == "stream" &&
    NF == 5 { print "stream-" $4 }' "$WORK/percpu" | sort | tr '\n' ' ')"
check_eq "files: metadata, global, one per stream" "${want_files% }" \
    "$(ls "$WORK/ctf" | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "metadata signature" "/* CTF 1.8 */" \
    "$(head -1 "$WORK/ctf/metadata")"

babeltrace2 --clock-cycles "$WORK/ctf" > "$WORK/bt" 2> "$WORK/bt.err"
check_eq "babeltrace2 status" 0 "$?"
check_eq "babeltrace2 messages" "" "$(cat "$WORK/bt.err")"
"$QTRACE" dump "$T" > "$WORK/dump"
python3 "$HERE/ctf-compare.py" "$WORK/bt" "$WORK/dump" "$WORK/percpu" \
    > "$WORK/cmp"
check_eq "compare status" 0 "$?"
check_eq "every record compared" "compared $(wc -l < "$WORK/dump")" \
    "$(grep '^compared ' "$WORK/cmp")"
check_eq "babeltrace2 and dump agree field by field" "differences 0" \
    "$(tail -1 "$WORK/cmp")"
grep -v -e '^compared ' -e '^count ' -e '^streams ' -e '^differences ' \
    "$WORK/cmp" | head -5
check_eq "events per name as qtrace info counts them" \
    "count $("$QTRACE" info "$T" | awk '/^events:$/ { on = 1; next }
        /^total:/ { on = 0 } on && NF == 2 { print $1 "=" $2 }' |
        LC_ALL=C sort -t= -k1,1 | tr '\n' ' ' | sed 's/ $//')" \
    "$(grep '^count ' "$WORK/cmp")"
check_eq "cpu_id:qtrace_stream pairs are info's vcpu:stream" \
    "streams $( (echo 4294967295:4294967295; awk '$1 == "vcpu" &&
        $3 == "stream" && NF == 5 { print $2 ":" $4 }' "$WORK/percpu") |
        LC_ALL=C sort -t= -k1,1 | tr '\n' ' ' | sed 's/ $//')" \
    "$(grep '^streams ' "$WORK/cmp")"

# Times in order in each stream (babeltrace2 would refuse otherwise, and
# its muxer merges the streams by time).
check_eq "babeltrace2's merged times never go back" "" \
    "$(awk -F'[][]' '{ t = $2 + 0; if (t < last) print NR; last = t }' \
       "$WORK/bt" | head -3)"

# The default pretty output names the fields, with the clock as ns.
babeltrace2 "$WORK/ctf" 2>/dev/null | grep -m1 ' syscall: ' > "$WORK/one"
check_grep "pretty output: named, typed fields" \
    '^\[00:00:00\.[0-9]{9}\] \(\+[0-9.?]+\) syscall: \{ cpu_id = [0-9]+, qtrace_stream = [0-9]+ \}, \{ num = [0-9]+, a1 = 0x[0-9A-F]+, a2 = 0x' \
    "$WORK/one"

# -e: only the events asked for; a second conversion replaces the first.
"$QTRACE" convert -e 'syscall*' --to ctf "$T" "$WORK/ctf" 2> "$WORK/err"
check_eq "-e 'syscall*': status (replacing the directory)" 0 "$?"
babeltrace2 --clock-cycles "$WORK/ctf" > "$WORK/bt2" 2>&1
check_eq "-e 'syscall*': only system call events" \
    "syscall syscall_ret" \
    "$(awk '{ print $3 }' "$WORK/bt2" | tr -d ':' | sort -u | tr '\n' ' ' |
       sed 's/ $//')"
check_eq "-e 'syscall*': all of them" \
    "$(( $(info_count "$T" syscall) + $(info_count "$T" syscall_ret) ))" \
    "$(wc -l < "$WORK/bt2")"
finish
