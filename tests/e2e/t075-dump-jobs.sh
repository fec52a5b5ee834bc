#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dump -j N formats lines on N threads and writes them in the trace's
# order: on a trace of every kind of record (blocks, instructions with
# their disassembly, accesses, system calls, function records) of the
# demo guest of ARCH, one, two and five threads print the same bytes,
# as many lines as the trace has records (qtrace info), with and without
# -e; a cut trace gives the same lines and the same status; a full
# stdout fails; bad -j values are refused.
ARCH=$1
. "$(dirname "$0")/lib.sh"

use_guest demo "$ARCH"
env -i "$QTRACE" record \
    -e 'tb_trans,exec_tb,exec_insn,mem_access,syscall,syscall_ret,func_*' \
    -O chunk=64K -o "$WORK/t.qtr" -- "$GUEST" > /dev/null 2>&1
check_eq "record status" 0 "$?"

records=$("$QTRACE" info "$WORK/t.qtr" | sed -n 's/^total: //p')
for j in 1 2 5; do
    "$QTRACE" dump -j "$j" "$WORK/t.qtr" > "$WORK/j$j.txt"
    check_eq "-j $j: status" 0 "$?"
done
check_eq "-j 1: one line per record" "$records" "$(wc -l < "$WORK/j1.txt")"
check_grep "-j 1: instructions disassembled" ' exec_insn .* | [a-z]' \
    "$WORK/j1.txt"
for j in 2 5; do
    if cmp -s "$WORK/j1.txt" "$WORK/j$j.txt"; then
        pass "-j $j prints what -j 1 prints ($records lines)"
    else
        fail "-j $j differs from -j 1"
        diff "$WORK/j1.txt" "$WORK/j$j.txt" | head -5
    fi
done

"$QTRACE" dump -j 1 -e 'mem_access,syscall*' "$WORK/t.qtr" > "$WORK/e1.txt"
"$QTRACE" dump -j 3 -e 'mem_access,syscall*' "$WORK/t.qtr" > "$WORK/e3.txt"
check_eq "-e: same lines on 3 threads" "$(md5sum < "$WORK/e1.txt")" \
    "$(md5sum < "$WORK/e3.txt")"
check_grep "-e: accesses shown" ' mem_access ' "$WORK/e3.txt"

# Cut the trace in the middle of a chunk: every record before the cut,
# then the same warning and status.
size=$(wc -c < "$WORK/t.qtr")
head -c $((size / 2 + 123)) "$WORK/t.qtr" > "$WORK/cut.qtr"
"$QTRACE" dump -j 1 "$WORK/cut.qtr" > "$WORK/c1.txt" 2> "$WORK/c1.err"
s1=$?
"$QTRACE" dump -j 4 "$WORK/cut.qtr" > "$WORK/c4.txt" 2> "$WORK/c4.err"
s4=$?
check_eq "cut: same status on 4 threads" "$s1" "$s4"
check_eq "cut: same lines on 4 threads" "$(md5sum < "$WORK/c1.txt")" \
    "$(md5sum < "$WORK/c4.txt")"
check_eq "cut: same message" "$(cat "$WORK/c1.err")" "$(cat "$WORK/c4.err")"
check_eq "cut: fewer lines" yes \
    "$([ "$(wc -l < "$WORK/c4.txt")" -lt "$records" ] && echo yes || echo no)"

if [ -w /dev/full ]; then
    for j in 1 2; do
        "$QTRACE" dump -j $j "$WORK/t.qtr" > /dev/full 2> "$WORK/full.err"
        check_eq "full stdout, -j $j: status" 1 "$?"
        check_grep "full stdout, -j $j: the cause is named" \
            "standard output: No space left on device" "$WORK/full.err"
    done
fi

for bad in 0 65 -1 two; do
    "$QTRACE" dump -j "$bad" "$WORK/t.qtr" > /dev/null 2> "$WORK/bad.err"
    check_eq "-j $bad: usage status" 2 "$?"
    check_grep "-j $bad: says why" "from 1 to 64" "$WORK/bad.err"
done
finish
