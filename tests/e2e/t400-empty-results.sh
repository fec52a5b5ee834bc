#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Empty results are said, not shown as zeros: report --syscalls and
# --functions, replay and convert --to uftrace on a trace of the asm
# guest of ARCH recorded with blocks only print a "none (...)" line and
# exit 1, and convert leaves no OUT behind. The same commands on traces
# that hold the records (the asm guest's one exit_group, the calls
# guest's calls) exit 0.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"

T="$WORK/blocks.qtr"
"$QTRACE" record -e 'tb_trans,exec_tb' -o "$T" -- "$GUEST" > /dev/null
check_eq "guest exit status" "$(expect_get exit)" "$?"
check_eq "no syscall records (by the -e selection)" 0 \
    "$(info_count "$T" syscall)"

"$QTRACE" report --syscalls "$T" > "$WORK/out" 2>&1
check_eq "report --syscalls status" 1 "$?"
check_grep "report --syscalls says none" "^syscalls: none \(" "$WORK/out"
check_eq "report --syscalls prints no table" 0 \
    "$(grep -c 'total' "$WORK/out")"

"$QTRACE" report --functions "$T" > "$WORK/out" 2>&1
check_eq "report --functions status" 1 "$?"
check_grep "report --functions says none" "^functions: none \(" "$WORK/out"

# Blocks give --blocks, --insns and --vcpus something: a trace of
# translations alone leaves every section empty.
"$QTRACE" record -q -e 'tb_trans' -o "$WORK/trans.qtr" -- "$GUEST" \
    > /dev/null
"$QTRACE" report "$WORK/trans.qtr" > "$WORK/out" 2>&1
st=$?
rm -f "$WORK/trans.qtr"
check_eq "report (every section empty) status" 1 "$st"

"$QTRACE" replay "$T" > "$WORK/out" 2>&1
check_eq "replay status" 1 "$?"
check_grep "replay says none" "^calls: none \(" "$WORK/out"
check_eq "replay prints no header" 0 "$(grep -c INSNS "$WORK/out")"

"$QTRACE" convert --to uftrace "$T" "$WORK/out.uftrace" 2> "$WORK/err"
check_eq "convert --to uftrace status" 1 "$?"
check_grep "convert says none" "none \(no func_entry records" "$WORK/err"
if [ -e "$WORK/out.uftrace" ]; then
    fail "convert left $(ls "$WORK/out.uftrace" | wc -l) files behind"
else
    pass "convert left no OUT behind"
fi
check_eq "convert left no temporary behind" "blocks.qtr err out" \
    "$(ls "$WORK" | tr '\n' ' ' | sed 's/ $//')"

# With the records there: the guest makes one system call, exit_group.
"$QTRACE" record -e syscall -o "$WORK/sys.qtr" -- "$GUEST" > /dev/null
"$QTRACE" report --syscalls "$WORK/sys.qtr" > "$WORK/out" 2>&1
check_eq "report --syscalls with records: status" 0 "$?"
check_eq "report --syscalls with records: the call" "1 0 exit_group" \
    "$(awk '$3 == "exit_group" { print $1, $2, $3 }' "$WORK/out")"

if [ -x "$GUESTS/calls-$ARCH" ]; then
    "$QTRACE" record -e 'func_*' -o "$WORK/f.qtr" -- "$GUESTS/calls-$ARCH" \
        > /dev/null 2>&1
    "$QTRACE" report --functions "$WORK/f.qtr" > /dev/null 2>&1
    check_eq "report --functions with calls: status" 0 "$?"
    "$QTRACE" replay "$WORK/f.qtr" > "$WORK/out" 2>&1
    check_eq "replay with calls: status" 0 "$?"
    "$QTRACE" replay -F no_such_function "$WORK/f.qtr" > "$WORK/out" 2>&1
    check_eq "replay -F matching nothing: status" 1 "$?"
    check_grep "replay -F matching nothing says none" "^calls: none \(" \
        "$WORK/out"
fi
finish
