#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# instr-unload on a running user-mode guest ("spin" guest of
# tests/guests/ctl-wait.c): the counter example loaded mid-run and
# unloaded answers only after its fini wrote its counts; the library is
# closed and the guest runs on without a call into it (any would crash
# QEMU: the code is unmapped), and its output is not written again at
# exit. Ids are never reused, unloading twice or an unknown id is an
# error, a qemu-instr library (the proposal's example) loads and unloads
# too, with a second one refused while it is loaded, and a library still
# loaded at exit gets its fini then. Usage: t995-ctl-instr-unload.sh ARCH.
ARCH=${1:?usage: t995-ctl-instr-unload.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

use_guest ctl-wait "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
COUNTER=$INSTR_EXAMPLES/libqtrace-instr-counter.so
PROPOSAL=$INSTR_EXAMPLES/libqtrace-qi-proposal-example.so
QINOP=$INSTR_EXAMPLES/libqtrace-qi-nop.so
SOCK=$WORK/c.sock
T=$WORK/t.qtr
STOP=$WORK/stop

ctl_start_guest "$SOCK" "$T" ",events=exec_tb;sys*" spin "$STOP"
ctl_wait_socket "$SOCK"
sleep 0.3

# ctl_ok WHAT COMMAND...: the command succeeds; its reply in $WORK/reply.
ctl_ok() {
    what=$1
    shift
    "$QTRACE" ctl "$SOCK" "$@" > "$WORK/reply" 2>&1
    check_eq "$what: status" 0 $?
}
# ctl_err WHAT MESSAGE COMMAND...: one error reply, exactly MESSAGE.
ctl_err() {
    what=$1
    msg=$2
    shift 2
    "$QTRACE" ctl "$SOCK" "$@" > "$WORK/reply" 2>&1
    check_eq "$what: status" 1 $?
    check_eq "$what: reply" "qtrace ctl: $msg" "$(cat "$WORK/reply")"
}

ctl_ok "instr-load counter" instr-load "$COUNTER" "out=$WORK/c1"
check_eq "its id" "id 1" "$(cat "$WORK/reply")"
sleep 0.5
grep -q "^blocks" "$WORK/c1" 2> /dev/null &&
    fail "counts written before the unload" ||
    pass "no counts before the unload"
ctl_ok "instr-unload 1" instr-unload 1
# The reply comes after fini: the counts are there already.
blocks=$(awk '$1 == "blocks" { print $2 }' "$WORK/c1" 2> /dev/null)
if [ "${blocks:-0}" -gt 0 ]; then
    pass "fini ran before the reply: $blocks blocks"
else
    fail "no counts at the reply of instr-unload"
fi
cp "$WORK/c1" "$WORK/c1.at-unload" 2> /dev/null
ctl_ok "info instr" info instr
check_eq "info instr after the unload" "1 unloaded qtrace $COUNTER" \
    "$(cat "$WORK/reply")"
ctl_err "unload twice" \
    "instr-unload: 1: $COUNTER is already unloaded" instr-unload 1
ctl_err "unload an unknown id" "instr-unload: 7: no library has this id" \
    instr-unload 7
ctl_err "unload a word" "instr-unload: one: not an id" instr-unload one

# qemu-instr: the proposal's example, a second one refused, then unloaded.
ctl_ok "instr-load qemu-instr" instr-load "$PROPOSAL" arg1
check_eq "qemu-instr id (1 is not reused)" "id 2" "$(cat "$WORK/reply")"
ctl_err "a second qemu-instr library" \
    "instr-load: instr=$QINOP: a second qemu-instr library (the qemu-instr API has one set of event callbacks per run)" \
    instr-load "$QINOP"
sleep 0.3
ctl_ok "instr-unload 2" instr-unload 2
check_grep "qi_fini ran" "^fini!$" "$WORK/guest.err"
ctl_ok "instr-load qemu-instr again" instr-load "$QINOP"
check_eq "its id" "id 3" "$(cat "$WORK/reply")"
ctl_ok "instr-load counter again" instr-load "$COUNTER" "out=$WORK/c4"
check_eq "its id" "id 4" "$(cat "$WORK/reply")"
ctl_ok "info instr" info instr
check_eq "info instr: every library of the run" \
"1 unloaded qtrace $COUNTER
2 unloaded qemu-instr $PROPOSAL
3 loaded qemu-instr $QINOP
4 loaded qtrace $COUNTER" "$(cat "$WORK/reply")"

# The guest runs on with the unloaded code gone.
sleep 0.5
ctl_stop_guest "$STOP"
check_eq "guest exit status" 0 "$QEMU_STATUS"
"$QTRACE" info "$T" > "$WORK/tinfo" 2>&1
check_grep "trace complete" "^end: complete" "$WORK/tinfo"
if cmp -s "$WORK/c1" "$WORK/c1.at-unload"; then
    pass "the unloaded library's counts are not written again"
else
    fail "c1 changed after its unload"
fi
check_grep "a library loaded at exit gets its fini" "^blocks [1-9]" \
    "$WORK/c4"
finish
