#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# instr-load and instr-unload on a guest that makes no system call and
# translates nothing new for seconds (tests/guests/busy.c): the flush
# they need is asked by the recording vCPU from its buffer's slow path,
# so the unload answers (after the library's fini) while the guest still
# runs, and the guest ends normally with a complete trace.
# Usage: t995-ctl-instr-busy.sh ARCH.
ARCH=${1:?usage: t995-ctl-instr-busy.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

use_guest busy "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
COUNTER=$INSTR_EXAMPLES/libqtrace-instr-counter.so
SOCK=$WORK/c.sock
T=$WORK/t.qtr

# About 3 s of computing under QEMU with blocks recorded.
ctl_start_guest "$SOCK" "$T" ",events=exec_tb" 2000000
ctl_wait_socket "$SOCK"
sleep 0.3
"$QTRACE" ctl "$SOCK" instr-load "$COUNTER" "out=$WORK/c" > "$WORK/l" 2>&1
check_eq "instr-load reply" "id 1" "$(cat "$WORK/l")"
sleep 0.3
"$QTRACE" ctl --timeout=2 "$SOCK" instr-unload 1 > "$WORK/u" 2>&1
check_eq "instr-unload status" 0 $?
kill -0 "$QEMU_PID" 2> /dev/null && pass "the reply came while the guest ran" ||
    fail "the guest ended before the reply"
check_grep "fini ran before the reply" "^blocks [1-9]" "$WORK/c"
wait "$QEMU_PID"
check_eq "guest exit status" 0 $?
"$QTRACE" info "$T" > "$WORK/tinfo" 2>&1
check_grep "trace complete" "^end: complete" "$WORK/tinfo"
finish
