#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# instr-load refusals on a running user-mode guest ("spin" guest of
# tests/guests/ctl-wait.c): each is one error reply with the line
# docs/instrument.md gives at start (missing file, another API major, no
# init, both APIs, no qi_init, init failing, init crashing in either
# API), and the run-time ones: a library registering its own events
# after the catalog is written, and function callbacks while the call
# tracker does not run. The guest runs on (its instruction count grows),
# a refused library takes no id, and the trace ends complete.
# Usage: t995-ctl-instr-refuse.sh ARCH.
ARCH=${1:?usage: t995-ctl-instr-refuse.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

use_guest ctl-wait "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
[ -n "${INSTR_TEST_LIBS:-}" ] || skip "INSTR_TEST_LIBS not set"
E=$INSTR_EXAMPLES
L=$INSTR_TEST_LIBS
SOCK=$WORK/c.sock
T=$WORK/t.qtr
STOP=$WORK/stop

ctl_start_guest "$SOCK" "$T" ",events=exec_tb;sys*" spin "$STOP"
ctl_wait_socket "$SOCK"
sleep 0.3
"$QTRACE" ctl "$SOCK" stats > "$WORK/s0"

# refused WHAT REGEX PATH [ARG...]: one error reply matching REGEX (after
# "qtrace ctl: instr-load: instr=PATH: ").
refused() {
    what=$1
    why=$2
    shift 2
    "$QTRACE" ctl "$SOCK" instr-load "$@" > "$WORK/out" 2> "$WORK/err"
    check_eq "$what: status" 1 $?
    check_eq "$what: one line" 1 "$(wc -l < "$WORK/err")"
    check_grep "$what: the line says why" \
        "^qtrace ctl: instr-load: instr=$1: $why\$" "$WORK/err"
}

refused "missing file" ".*No such file or directory" "$WORK/none.so"
refused "another major" \
    "built for instrumentation API 2\.0, this qtrace speaks 1\.[0-9]+" \
    "$L/libinstr-bad-major.so"
refused "no init" "no qtrace_instr_init" "$L/libinstr-no-init.so"
refused "both APIs" "exports both qtrace_instr_init and qi_init .*" \
    "$L/libinstr-qi-both.so"
refused "no qi_init" "no qi_init \(a qemu-instr library must export it\)" \
    "$L/libinstr-qi-no-init.so"
refused "init fails" "qtrace_instr_init failed \(1\): asked to fail" \
    "$E/libqtrace-instr-null.so" fail
refused "init crashes" "qtrace_instr_init crashed \(SIGSEGV\)" \
    "$L/libinstr-crash.so"
refused "qi_init crashes" "qi_init crashed \(SIGSEGV\)" \
    "$L/libinstr-qi-crash.so"
refused "own events after start" \
    "qtrace_instr_init failed \(1\): register_events: loaded at run time: the trace's catalog is written \(user_event records still work\): no events \(-1\)" \
    "$L/libinstr-twin.so"
# The tracker runs only when asked at start (func_* or a library).
refused "function callbacks without the call tracker" \
    "qtrace_instr_init failed \(1\): no function calls on $ARCH \(-2\)" \
    "$E/libqtrace-instr-calls.so" "out=$WORK/calls"

"$QTRACE" ctl "$SOCK" info instr > "$WORK/info" 2>&1
check_eq "info instr: no library" "" "$(cat "$WORK/info")"
"$QTRACE" ctl "$SOCK" instr-load "$E/libqtrace-instr-null.so" \
    > "$WORK/out" 2>&1
check_eq "a refused library takes no id" "id 1" "$(cat "$WORK/out")"
sleep 0.3
"$QTRACE" ctl "$SOCK" stats > "$WORK/s1"
if [ "$(stat_get "$WORK/s1" insns)" -gt "$(stat_get "$WORK/s0" insns)" ]
then
    pass "the guest runs on: $(stat_get "$WORK/s1" insns) instructions"
else
    fail "the guest stopped: $(stat_get "$WORK/s0" insns)," \
         "$(stat_get "$WORK/s1" insns) instructions"
fi

ctl_stop_guest "$STOP"
check_eq "guest exit status" 0 "$QEMU_STATUS"
"$QTRACE" info "$T" > "$WORK/tinfo" 2>&1
check_grep "trace complete" "^end: complete" "$WORK/tinfo"
finish
