#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An instrumentation library's own records: a library writes a user_event
# each time the loop head of the assembly guest of ARCH runs. The trace
# must hold loop_count of them (asm-ARCH.expect), with the library's
# place among the instr= options, its id and its values; with events=
# not selecting user_event the host refuses every one and none is
# recorded.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_TEST_LIBS:-}" ] || skip "INSTR_TEST_LIBS not set"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
EMIT="$INSTR_TEST_LIBS/libinstr-emit-at.so"
NULL_LIB="$INSTR_EXAMPLES/libqtrace-instr-null.so"
LOOP=$(expect_get loop_pc)

# The emitting library second: its records say lib 2.
"$QTRACE" record -q -o "$WORK/t.qtr" --instr "$NULL_LIB" \
    --instr "$EMIT" --instr-arg "pc=$LOOP" \
    -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "exit status passed through" "$(expect_get exit)" "$?"
check_eq "no record refused" 0 "$(grep -c 'records refused' "$WORK/err")"
"$QTRACE" dump "$WORK/t.qtr" > "$WORK/dump"
check_eq "user_event records" "$(expect_get loop_count)" \
    "$(awk '$3 == "user_event"' "$WORK/dump" | wc -l)"
check_eq "each names lib 2, id 7, the loop head and 0xfeed" \
    "$(expect_get loop_count)" \
    "$(awk -v pc="$LOOP" '$3 == "user_event" && $5 == 2 && $7 == 7 &&
        $9 == pc && $10 == "0xfeed" && $11 == "0x0" && $12 == "0x0"' \
        "$WORK/dump" | wc -l)"

# events= without user_event: nothing recorded, every emit refused.
"$QTRACE" record -q -e exec_tb -o "$WORK/t.qtr" \
    --instr "$EMIT" --instr-arg "pc=$LOOP" \
    -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "unselected: exit status" "$(expect_get exit)" "$?"
check_eq "unselected: no user_event" 0 "$(info_count "$WORK/t.qtr" user_event)"
check_grep "unselected: the library saw each refused" \
    "^emit-at: $(expect_get loop_count) records refused" "$WORK/err"
finish
