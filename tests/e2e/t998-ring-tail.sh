#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ring=: the snapshot at exit holds exactly the last records of the run.
# The deterministic guest (ctl-wait, its fifo already holding a line) is
# recorded twice with the same events: into a full trace, and with a ring
# of two chunks. Per vCPU, the ring's blocks, accesses and system calls
# (times and pcs included) must be the full trace's last ones; the ring
# file reads on its own, and END says how many records the ring dropped;
# qtrace record --ring does the same.
# Usage: t998-ring-tail.sh ARCH.
ARCH=${1:?usage: t998-ring-tail.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ring-lib.sh
. "$(dirname "$0")/ring-lib.sh"

use_guest ctl-wait "$ARCH"
EVENTS="exec_tb;mem_access;syscall;syscall_ret"
DUMP_EVENTS="exec_tb,mem_access,syscall,syscall_ret"
echo go > "$WORK/in"

# run TAG MORE_OPTS: the guest under the plugin into $WORK/TAG.qtr.
run() {
    "qemu-$ARCH" -plugin \
        "$QTRACE_PLUGIN,out=$WORK/$1.qtr,events=$EVENTS,chunk=64k$2" \
        "$GUEST" fifo "$WORK/in" > "$WORK/$1.out" 2> "$WORK/$1.err"
    check_eq "$1: guest exit status" 0 $?
}

run full ""
run ring ",ring=128k"
check_reads "ring file" "$WORK/ring.qtr"
check_eq "ring file: END exit" exit "$(end_key "$WORK/ring.qtr" exit)"

records_of "$WORK/full.qtr" "$DUMP_EVENTS" > "$WORK/full.rec"
records_of "$WORK/ring.qtr" "$DUMP_EVENTS" > "$WORK/ring.rec"
check_tail "exit snapshot" "$WORK/ring.rec" "$WORK/full.rec"

# The ring dropped the rest: its records and the dropped ones cover the
# full run's (the dropped chunks' restart records count as dropped too).
full_n=$(wc -l < "$WORK/full.rec")
ring_n=$(wc -l < "$WORK/ring.rec")
dropped=$(end_key "$WORK/ring.qtr" ring_dropped)
if [ "${dropped:-0}" -gt 0 ] && [ "$ring_n" -lt "$full_n" ] &&
    [ $((dropped + ring_n)) -ge "$full_n" ]; then
    pass "END ring_dropped=$dropped and the ring's $ring_n cover $full_n"
else
    fail "END ring_dropped='$dropped', ring $ring_n, full $full_n records"
fi
check_eq "a full trace has no ring_dropped" "" \
    "$(end_key "$WORK/full.qtr" ring_dropped)"

# qtrace record --ring=SIZE passes ring=SIZE: against a full recording
# by qtrace record too (its guest's stack and translations are its own;
# getppid returns a qtrace record's pid: no syscall_ret compared; blocks
# alone, for a test that stays quick).
for tag in recfull recring; do
    [ $tag = recring ] && set -- --ring=128k || set --
    "$QTRACE" record -q "$@" -O chunk=64k -e "exec_tb;syscall" \
        -o "$WORK/$tag.qtr" "$GUEST" fifo "$WORK/in" > /dev/null 2>&1
    check_eq "qtrace record ($tag): status" 0 $?
    records_of "$WORK/$tag.qtr" exec_tb,syscall > "$WORK/$tag.rec"
done
check_tail "record --ring" "$WORK/recring.rec" "$WORK/recfull.rec"
check_eq "record --ring: END has ring_dropped" 1 \
    "$(end_key "$WORK/recring.qtr" ring_dropped | grep -c '^[1-9]')"

# The smallest ring is two chunks: one line naming the option.
"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/bad.qtr,chunk=64k,ring=100k" \
    "$GUEST" fifo "$WORK/in" > /dev/null 2> "$WORK/bad.err"
check_grep "ring= below two chunks is refused" \
    "^qtrace: ring=100k: " "$WORK/bad.err"
finish
