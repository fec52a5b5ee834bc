#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Function entry and exit callbacks in system mode, from the same .so
# as in user mode (libqtrace-instr-calls.so), on QEMU 7.2 and 10.0: the
# bare-metal x86 guest (tests/guests/bare-x86_64.S), whose only calls
# are 3 calls of leaf at depth 1, each returning. No symbols in system
# mode: the function is named by its address (nm).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bare-lib.sh"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
[ -f "$BARE_BIN" ] || skip "guest bare-x86_64 not built (no x86_64 compiler)"
command -v nm > /dev/null 2>&1 || skip "nm not installed (binutils)"
CALLS="$INSTR_EXAMPLES/libqtrace-instr-calls.so"
leaf=$(printf '0x%x' "$(bare_sym leaf)")
n=$(expect_get leaf_calls)

ran=0
bare_qemus > "$WORK/qemus"
while read -r label qemu fw; do
    ran=1
    run_bare "$qemu" "$fw" "out=$WORK/t.qtr,instr=$CALLS,instr-arg=out=$WORK/$label.funcs"
    check_eq "$label: QEMU's exit status (the guest's)" \
        "$(expect_get exit)" "$status"
    check_eq "$label: the functions entered" \
        "func $leaf calls $n tail 0 signal 0 returns $n unwound 0 replaced 0 end 0 depth 1-1" \
        "$(cat "$WORK/$label.funcs")"
done < "$WORK/qemus"
[ "$ran" -eq 1 ] || skip "no qemu-system-x86_64"
finish
