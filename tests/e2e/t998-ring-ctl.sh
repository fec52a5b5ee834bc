#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ring=: snapshots from the control socket while the guest runs. The
# deterministic guest (ctl-wait fifo) is recorded in full once, and once
# with a ring and ctl=: while it waits on its fifo, `snapshot FILE` (a
# relative FILE, made absolute by qtrace ctl) writes a new complete trace,
# then `snapshot` writes the rings into the trace itself, then the guest
# goes on to its end (a FILE naming the trace itself is refused first).
# FILE must read on its own and hold a stretch of the full run that ends
# where the guest waits; the trace must begin with the same records
# (nothing ran in between) and end with the full run's last ones.
# Without ring= the command is refused.
# Usage: t998-ring-ctl.sh ARCH.
ARCH=${1:?usage: t998-ring-ctl.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"
# shellcheck source=tests/e2e/ring-lib.sh
. "$(dirname "$0")/ring-lib.sh"

use_guest ctl-wait "$ARCH"
EVENTS="exec_tb;mem_access;syscall;syscall_ret"
DUMP_EVENTS="exec_tb,mem_access,syscall,syscall_ret"
FIFO=$WORK/fifo
mkfifo "$FIFO" || skip "mkfifo failed"
mkdir "$WORK/here"

# run TAG OPTS [SNAPSHOTS]: the guest with ctl=; once it waits on the
# fifo, optionally the two snapshots; then it goes on to its end.
run() {
    ctl_start_guest "$WORK/$1.sock" "$WORK/$1.qtr" \
        ",events=$EVENTS,chunk=64k$2" fifo "$FIFO"
    ctl_wait_socket "$WORK/$1.sock"
    ctl_wait_file "$WORK/guest.out" ready
    if [ -n "${3:-}" ]; then
        "$QTRACE" ctl "$WORK/$1.sock" snapshot "$WORK/$1.qtr" \
            > "$WORK/snap-self.out" 2>&1
        check_eq "snapshot into the trace file by name: status" 1 $?
        check_grep "snapshot into the trace file by name: reason" \
            "snapshot: .*/$1.qtr: the current trace file" "$WORK/snap-self.out"
        (cd "$WORK/here" && "$QTRACE" ctl "$WORK/$1.sock" snapshot mid.qtr) \
            > "$WORK/snap1.out" 2>&1
        check_eq "snapshot FILE: status" 0 $?
        check_grep "snapshot FILE: reply" "^records [1-9]" "$WORK/snap1.out"
        "$QTRACE" ctl "$WORK/$1.sock" snapshot > "$WORK/snap2.out" 2>&1
        check_eq "snapshot: status" 0 $?
        check_grep "snapshot: reply" "^ring_dropped [1-9]" "$WORK/snap2.out"
        "$QTRACE" ctl "$WORK/$1.sock" stats > "$WORK/stats.out" 2>&1
        check_eq "stats: the rings are empty after the snapshot" 0 \
            "$(stat_get "$WORK/stats.out" ring_chunks)"
        check_eq "stats: ring_dropped as the snapshot said" \
            "$(stat_get "$WORK/snap2.out" ring_dropped)" \
            "$(stat_get "$WORK/stats.out" ring_dropped)"
    fi
    if [ -n "${4:-}" ]; then
        "$QTRACE" ctl "$WORK/$1.sock" snapshot > "$WORK/snap0.out" 2>&1
        check_eq "snapshot without ring=: status" 1 $?
        check_grep "snapshot without ring=: reason" \
            "qtrace ctl: snapshot: no rings to write" "$WORK/snap0.out"
    fi
    echo go > "$FIFO"
    wait "$QEMU_PID"
    check_eq "$1: guest exit status" 0 $?
}

run full "" "" refused
run ring ",ring=128k" snapshots

MID=$WORK/here/mid.qtr
check_reads "snapshot FILE" "$MID"
check_eq "snapshot FILE: END exit" snapshot "$(end_key "$MID" exit)"
check_reads "trace" "$WORK/ring.qtr"

records_of "$WORK/full.qtr" "$DUMP_EVENTS" > "$WORK/full.rec"
records_of "$MID" "$DUMP_EVENTS" > "$WORK/mid.rec"
records_of "$WORK/ring.qtr" "$DUMP_EVENTS" > "$WORK/ring.rec"

# FILE: a stretch of the full run (times are unique in one vCPU's
# stream), ending with the system call the guest waits in.
n=$(wc -l < "$WORK/mid.rec")
last=$(tail -n 1 "$WORK/mid.rec")
k=$(grep -n -x -F -- "$last" "$WORK/full.rec" | head -n 1 | cut -d: -f1)
case "$last" in
*" syscall "*) pass "snapshot FILE ends in the guest's waiting system call" ;;
*) fail "snapshot FILE ends with '$last', not a system call" ;;
esac
if [ "$n" -gt 0 ] && [ -n "$k" ] && [ "$k" -ge "$n" ] &&
    sed -n "$((k - n + 1)),${k}p" "$WORK/full.rec" | cmp -s - "$WORK/mid.rec"
then
    pass "snapshot FILE: its $n records are the full run's up to the wait"
else
    fail "snapshot FILE: its $n records are not a stretch of the full run"
fi
head -n "$n" "$WORK/ring.rec" | cmp -s - "$WORK/mid.rec" &&
    pass "the trace's snapshot holds the same records" ||
    fail "the trace's snapshot differs from snapshot FILE's"
tail -n +"$((n + 1))" "$WORK/ring.rec" > "$WORK/exit.rec"
check_tail "exit snapshot after the others" "$WORK/exit.rec" "$WORK/full.rec"
finish
