#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# instr-load on a running user-mode guest: the "fifo" guest of
# tests/guests/ctl-wait.c does its first half, then blocks opening its
# fifo; the counter example is loaded there, and again under another
# name (ids 1 and 2, listed by info instr; loading the same file twice
# is refused: one copy of its globals per process). QEMU flushes the translations when the guest comes back
# from that system call, so each library counts exactly the instructions
# the trace has after the fifo's openat returned (END's total minus the
# time of the first block after it), and nothing of the first half.
# Usage: t995-ctl-instr-load.sh ARCH.
ARCH=${1:?usage: t995-ctl-instr-load.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

use_guest ctl-wait "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
COUNTER=$INSTR_EXAMPLES/libqtrace-instr-counter.so
SOCK=$WORK/c.sock
T=$WORK/t.qtr
FIFO=$WORK/fifo
mkfifo "$FIFO" || skip "cannot make a fifo in $WORK"

ctl_start_guest "$SOCK" "$T" ",events=exec_tb;sys*" fifo "$FIFO"
ctl_wait_socket "$SOCK"
ctl_wait_file "$WORK/guest.out" ready
# The guest is in its open of the fifo a moment after "ready".
sleep 0.5

"$QTRACE" ctl "$SOCK" instr-load "$COUNTER" "out=$WORK/c1" > "$WORK/l1" 2>&1
check_eq "instr-load status" 0 $?
check_eq "instr-load reply" "id 1" "$(cat "$WORK/l1")"
"$QTRACE" ctl "$SOCK" instr-load "$COUNTER" "out=$WORK/c2" > "$WORK/l2" 2>&1
check_eq "the same file again: status" 1 $?
check_eq "the same file again: reply" "qtrace ctl: instr-load: \
instr=$COUNTER: already loaded as id 1 (one copy of a library per \
process: load a copy under another name)" "$(cat "$WORK/l2")"
cp "$COUNTER" "$WORK/counter-copy.so"
"$QTRACE" ctl "$SOCK" instr-load "$WORK/counter-copy.so" "out=$WORK/c2" \
    > "$WORK/l2" 2>&1
check_eq "a copy: instr-load reply" "id 2" "$(cat "$WORK/l2")"
"$QTRACE" ctl "$SOCK" info instr > "$WORK/info" 2>&1
check_eq "info instr" "1 loaded qtrace $COUNTER
2 loaded qtrace $WORK/counter-copy.so" "$(cat "$WORK/info")"

echo go > "$FIFO"
wait "$QEMU_PID"
check_eq "guest exit status" 0 $?

"$QTRACE" info "$T" > "$WORK/tinfo" 2>&1
check_grep "trace complete" "^end: complete" "$WORK/tinfo"
total=$(awk '$1 == "instructions:" { print $2 }' "$WORK/tinfo")
# The first block after the fifo's open returned: where counting starts.
start=$("$QTRACE" dump "$T" 2> /dev/null |
        awk '$3 == "syscall_ret" && $NF == "openat" { found = 1; next }
             found && $3 == "exec_tb" { print $2; exit }')
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
if [ -n "$start" ] && [ -n "$total" ] && [ "$start" -gt 0 ]; then
    check_eq "library 1 counts the second half only" \
        "$((total - start))" "$(value insns "$WORK/c1")"
    check_eq "library 2 counts the same" \
        "$((total - start))" "$(value insns "$WORK/c2")"
else
    fail "no openat return or no total in the trace ($start, $total)"
fi
if [ "$(value blocks "$WORK/c1")" -gt 0 ] 2> /dev/null &&
   [ "$(value insns "$WORK/c1")" -lt "$total" ]; then
    pass "counts > 0 and below the whole run's ($total)"
else
    fail "counts: $(value blocks "$WORK/c1") blocks," \
         "$(value insns "$WORK/c1") of $total instructions"
fi
finish
