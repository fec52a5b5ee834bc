#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# instr-load and instr-unload in system mode: the pc machine's BIOS (no
# disk: it waits for a boot device) under qemu-system-x86_64 7.2 (Debian)
# or the 10.0 in $QEMU10_DIR. The counter example loaded mid-run and
# unloaded answers after its fini, with counts > 0 and no more
# instructions than the trace's own count grew by between the stats taken
# before the load and after the unload; a qemu-instr library loads and
# unloads; a library still loaded at exit gets its fini; the machine
# runs on and the trace ends complete. Usage: t995-ctl-instr-system.sh
# 7.2|10.0.
PART=${1:?usage: t995-ctl-instr-system.sh 7.2|10.0}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
TEST_NAME=t995-ctl-instr-system-$PART
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
COUNTER=$INSTR_EXAMPLES/libqtrace-instr-counter.so
QINOP=$INSTR_EXAMPLES/libqtrace-qi-nop.so
SOCK=$WORK/c.sock
T=$WORK/t.qtr

ctl_start_bios "$PART" "$SOCK" "$T"
ctl_wait_socket "$SOCK"
sleep 0.5

"$QTRACE" ctl "$SOCK" stats > "$WORK/s0"
"$QTRACE" ctl "$SOCK" instr-load "$COUNTER" "out=$WORK/c1" > "$WORK/l1" 2>&1
check_eq "instr-load reply" "id 1" "$(cat "$WORK/l1")"
sleep 1
"$QTRACE" ctl --timeout=20 "$SOCK" instr-unload 1 > "$WORK/u1" 2>&1
check_eq "instr-unload status" 0 $?
"$QTRACE" ctl "$SOCK" stats > "$WORK/s1"
insns=$(awk '$1 == "insns" { print $2 }' "$WORK/c1" 2> /dev/null)
grown=$(($(stat_get "$WORK/s1" insns) - $(stat_get "$WORK/s0" insns)))
if [ "${insns:-0}" -gt 0 ] && [ "$insns" -le "$grown" ]; then
    pass "counted $insns instructions, at most the $grown run meanwhile"
else
    fail "counted '${insns:-}' instructions, $grown ran meanwhile"
fi

"$QTRACE" ctl "$SOCK" instr-load "$QINOP" > "$WORK/l2" 2>&1
check_eq "qemu-instr library: id" "id 2" "$(cat "$WORK/l2")"
sleep 0.3
"$QTRACE" ctl --timeout=20 "$SOCK" instr-unload 2 > "$WORK/u2" 2>&1
check_eq "qemu-instr library unloaded" 0 $?
"$QTRACE" ctl "$SOCK" instr-load "$COUNTER" "out=$WORK/c3" > "$WORK/l3" 2>&1
check_eq "counter again: id" "id 3" "$(cat "$WORK/l3")"
"$QTRACE" ctl "$SOCK" info instr > "$WORK/info" 2>&1
check_eq "info instr" "1 unloaded qtrace $COUNTER
2 unloaded qemu-instr $QINOP
3 loaded qtrace $COUNTER" "$(cat "$WORK/info")"
sleep 0.5

kill -TERM "$QEMU_PID"
wait "$QEMU_PID"
check_eq "QEMU exit status after SIGTERM" 0 $?
"$QTRACE" info "$T" > "$WORK/tinfo" 2>&1
check_grep "trace complete" "^end: complete" "$WORK/tinfo"
check_grep "the library loaded at exit: fini" "^blocks [1-9]" "$WORK/c3"
finish
