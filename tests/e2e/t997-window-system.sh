#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Windows in system mode, on the x86 firmware guest (boot-x86.S) under
# QEMU 7.2 or 10.0. By the guest's construction its blocks start at
# instruction 0 (the reset vector's jmp), 1 (set-up, 4 instructions),
# 5 + 5k (the loop, k = 0..99: a 2-byte load from 0x1000 and a 2-byte
# store to 0x1008 each) and 505 (the tail); the loop is at 0xffff0009 (the
# set-up's code is 9 bytes).
#   start-at=105 stop-after=100: loop blocks k = 20..39: 20 blocks, 20
#     loads, 20 stores, opened at 105, closed at 205.
#   start-at=0xffff0009 stop-after=50: the loop's first 10 blocks,
#     opened at 5 from count-only translation, closed at 55.
#   start-at=105 stop-at=TAIL (the tail's address, after the loop):
#     loop blocks k = 20..99, closed at 505.
#   ring= with snapshot-at=TAIL: two snapshots (END says so), the one
#     at the trigger holding every record before the tail's block, the
#     one at exit the tail (up to the hlt's block, which QEMU 10.0 may
#     not enter).
# All are also compared with a full trace of the same run.
VERSION=${1:?usage: t997-window-system.sh 7.2|10.0}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/boot-lib.sh"
. "$(dirname "$0")/window-lib.sh"
TEST_NAME=t997-window-system-$VERSION
use_boot_x86 "$VERSION"

EV='exec_tb;mem_access;tb_trans'
run_boot_x86 "out=$WORK/full.qtr,events=$EV"
check_eq "full run: guest's exit status" 41 "$rc"
"$QTRACE" dump "$WORK/full.qtr" > "$WORK/full"

# count WHAT: records of the window's dump $WORK/w matching an awk test.
count() {
    awk "$1" "$WORK/w" | wc -l | tr -d ' '
}

run_boot_x86 "out=$WORK/w.qtr,events=$EV,start-at=105,stop-after=100"
check_eq "start-at=105: guest's exit status" 41 "$rc"
"$QTRACE" dump "$WORK/w.qtr" > "$WORK/w"
check_eq "start-at=105: opened at" 105 "$(window_switch "$WORK/w" 0 1)"
check_eq "start-at=105: closed at" 205 "$(window_switch "$WORK/w" 0 0)"
check_eq "start-at=105: blocks" 20 \
    "$(count '$3 == "exec_tb" && $5 == "0xffff0009"')"
check_eq "start-at=105: loads of 0x1000" 20 \
    "$(count '$3 == "mem_access" && $7 == "0x1000" && / load( |$)/')"
check_eq "start-at=105: stores to 0x1008" 20 \
    "$(count '$3 == "mem_access" && $7 == "0x1008" && / store( |$)/')"
check_eq "start-at=105: records outside the loop" 0 \
    "$(count '($3 == "exec_tb" || $3 == "mem_access") && $5 != "0xffff0009" && $5 != "0xffff000f"')"
window_cut "$WORK/full" 0 105 205 > "$WORK/cut"
window_records "$WORK/w" 0 > "$WORK/win"
window_compare "start-at=105 stop-after=100" "$WORK/cut" "$WORK/win"

run_boot_x86 "out=$WORK/w.qtr,events=$EV,start-at=0xffff0009,stop-after=50"
check_eq "start-at=0xffff0009: guest's exit status" 41 "$rc"
"$QTRACE" dump "$WORK/w.qtr" > "$WORK/w"
check_eq "start-at=0xffff0009: opened at" 5 "$(window_switch "$WORK/w" 0 1)"
check_eq "start-at=0xffff0009: closed at" 55 "$(window_switch "$WORK/w" 0 0)"
check_eq "start-at=0xffff0009: blocks" 10 "$(count '$3 == "exec_tb"')"
check_eq "start-at=0xffff0009: loads of 0x1000" 10 \
    "$(count '$3 == "mem_access" && $7 == "0x1000" && / load( |$)/')"
window_cut "$WORK/full" 0 5 55 > "$WORK/cut"
window_records "$WORK/w" 0 > "$WORK/win"
window_compare "start-at=0xffff0009 stop-after=50" "$WORK/cut" "$WORK/win"

TAIL=$(awk '$1 == 0 && $2 == 505 && $3 == "exec_tb" { print $5; exit }' \
       "$WORK/full")
[ -n "$TAIL" ] || { fail "no tail block at 505 in the full trace"; finish; }
run_boot_x86 "out=$WORK/w.qtr,events=$EV,start-at=105,stop-at=$TAIL"
check_eq "stop-at=$TAIL: guest's exit status" 41 "$rc"
"$QTRACE" dump "$WORK/w.qtr" > "$WORK/w"
check_eq "stop-at=$TAIL: opened at" 105 "$(window_switch "$WORK/w" 0 1)"
check_eq "stop-at=$TAIL: closed at the tail's block" 505 \
    "$(window_switch "$WORK/w" 0 0)"
window_cut "$WORK/full" 0 105 505 > "$WORK/cut"
window_records "$WORK/w" 0 > "$WORK/win"
window_compare "start-at=105 stop-at=$TAIL" "$WORK/cut" "$WORK/win"

run_boot_x86 "out=$WORK/r.qtr,events=$EV,chunk=64k,ring=1M,snapshot-at=$TAIL"
check_eq "snapshot-at=$TAIL: guest's exit status" 41 "$rc"
"$QTRACE" info "$WORK/r.qtr" > "$WORK/r.info"
check_grep "snapshot-at=$TAIL: two snapshots" "^snapshots: 2\$" "$WORK/r.info"
"$QTRACE" dump "$WORK/r.qtr" > "$WORK/r"
# QEMU 10.0 may or may not enter the hlt's block (at time insns) before
# the exit port ends the run: the records before it are the run's.
INSNS=$(expect_get insns)
window_cut "$WORK/full" 0 0 "$INSNS" > "$WORK/cut"
window_records "$WORK/r" 0 | awk -v n="$INSNS" '$2 < n' > "$WORK/win"
window_compare "snapshot-at=$TAIL: both snapshots" "$WORK/cut" "$WORK/win"
finish
