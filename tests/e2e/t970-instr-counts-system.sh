#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The counter and store-counter example libraries, the same .so files as
# in user mode (t970-instr-counts), in system mode on QEMU 7.2 or 10.0
# (QEMU_VERSION): on the x86 firmware guest boot-x86 their numbers equal
# its construction (tests/guests/boot-x86.expect).
QEMU_VERSION=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/boot-lib.sh"
use_boot_x86 "$QEMU_VERSION"
LIBS="$INSTR_EXAMPLES"
[ -f "$LIBS/libqtrace-instr-counter.so" ] ||
    skip "example libraries not built (INSTR_EXAMPLES)"

# value KEY FILE: the number after "KEY " in FILE.
value() { sed -n "s/^$1 //p" "$2"; }

lib="instr=$LIBS/libqtrace-instr-counter.so"
run_boot_x86 "out=$WORK/t.qtr,$lib,instr-arg=out=$WORK/blocks"
check_eq "counter: QEMU's exit status" "$(expect_get exit)" "$rc"
# check_upto LABEL WANT GOT: GOT is WANT, or on 10.0 WANT + 1: there the
# exit of isa-debug-exit takes effect a little later and the hlt after
# out may start too (boot-x86.expect), in most runs but not all.
check_upto() {
    if [ "$3" = "$2" ] ||
        { [ "$QEMU_VERSION" = 10.0 ] && [ "$3" = $(($2 + 1)) ]; }; then
        pass "$1 = $3"
    else
        fail "$1: expected $2 (on 10.0 or one more), got '$3'"
    fi
}

check_upto "counter: blocks executed" "$(expect_get blocks_executed)" \
    "$(value blocks "$WORK/blocks")"
check_eq "counter: executions of the loop" 100 \
    "$(value 'block 0xffff0009' "$WORK/blocks")"
# By block sizes: 7.2 counts the hlt in the tail's block, always.
by_blocks=$(expect_get insns)
[ "$QEMU_VERSION" = 7.2 ] && by_blocks=$(expect_get insns_by_blocks)
check_upto "counter: instructions (block sizes)" "$by_blocks" \
    "$(value insns "$WORK/blocks")"

run_boot_x86 "out=$WORK/t.qtr,$lib,instr-arg=out=$WORK/insns,instr-arg=per-insn"
check_eq "counter per-insn: exit status" "$(expect_get exit)" "$rc"
check_upto "counter per-insn: instructions" "$(expect_get insns)" \
    "$(value insns "$WORK/insns")"

lib="instr=$LIBS/libqtrace-instr-stores.so"
run_boot_x86 "out=$WORK/t.qtr,$lib,instr-arg=out=$WORK/stores,instr-arg=loads"
check_eq "stores: exit status" "$(expect_get exit)" "$rc"
check_eq "stores" "$(expect_get stores)" "$(value stores "$WORK/stores")"
check_eq "loads" "$(expect_get loads)" "$(value loads "$WORK/stores")"
check_eq "stores of 2 bytes" 100 "$(value 'store 2' "$WORK/stores")"
check_eq "stores of 1 byte" 1 "$(value 'store 1' "$WORK/stores")"
finish
