#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The crash guard of instr-load guards the control thread only: while a
# library's init runs (tests/instr/slow-init.c, 500 ms), the guest
# (tests/guests/faults.c) keeps faulting, and each of its faults, a host
# SIGSEGV on the vCPU thread, must still reach QEMU's own handler, which
# hands it to the guest. The guest catches every fault it makes and the
# run ends normally, with a complete trace. Usage: t995-ctl-instr-guard.sh
# ARCH.
ARCH=${1:?usage: t995-ctl-instr-guard.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

use_guest faults "$ARCH"
[ -n "${INSTR_TEST_LIBS:-}" ] || skip "INSTR_TEST_LIBS not set"
SLOW=$INSTR_TEST_LIBS/libinstr-slow-init.so
SOCK=$WORK/c.sock
T=$WORK/t.qtr
STOP=$WORK/stop

ctl_start_guest "$SOCK" "$T" ",events=exec_tb" "$STOP"
ctl_wait_socket "$SOCK"
sleep 0.3
"$QTRACE" ctl "$SOCK" stats > "$WORK/s0"
"$QTRACE" ctl "$SOCK" instr-load "$SLOW" ms=500 > "$WORK/l" 2>&1
check_eq "instr-load status" 0 $?
check_eq "instr-load reply" "id 1" "$(cat "$WORK/l")"
"$QTRACE" ctl "$SOCK" stats > "$WORK/s1"
if [ "$(stat_get "$WORK/s1" insns)" -gt "$(stat_get "$WORK/s0" insns)" ]
then
    pass "the guest ran during the init"
else
    fail "the guest did not run during the init"
fi
ctl_stop_guest "$STOP"
check_eq "guest exit status" 0 "$QEMU_STATUS"
faults=$(awk '$1 == "faults" { print $2 }' "$WORK/guest.out")
rounds=$(awk '$1 == "faults" { print $4 }' "$WORK/guest.out")
if [ "${faults:-0}" -gt 0 ] && [ "$faults" = "$rounds" ]; then
    pass "every fault reached the guest: $faults"
else
    fail "faults caught '${faults:-}' of '${rounds:-}' rounds"
fi
"$QTRACE" info "$T" > "$WORK/tinfo" 2>&1
check_grep "trace complete" "^end: complete" "$WORK/tinfo"
finish
