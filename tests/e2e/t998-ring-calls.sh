#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ring= with the call tracker: the snapshot at exit holds exactly the
# last function entries and exits of the run. The memory-heavy guest's
# merge sort calls its comparison callback tens of thousands of times,
# and most of those calls and returns take the tracker's short staged
# form (16 and 20 bytes: the time from the chunk's start, the blocks as
# translation ids): a ring of two chunks keeps the last ones, which must
# be the full trace's last, times, addresses and depths included.
# Usage: t998-ring-calls.sh ARCH.
ARCH=${1:?usage: t998-ring-calls.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ring-lib.sh
. "$(dirname "$0")/ring-lib.sh"

use_guest memheavy "$ARCH"

# run TAG MORE_OPTS: the guest under the plugin into $WORK/TAG.qtr.
run() {
    "qemu-$ARCH" -plugin \
        "$QTRACE_PLUGIN,out=$WORK/$1.qtr,events=func_*,chunk=64k$2" \
        "$GUEST" 0 20000 > "$WORK/$1.out" 2> "$WORK/$1.err"
    check_eq "$1: guest exit status" 0 $?
}

run full ""
run ring ",ring=128k"
check_reads "ring file" "$WORK/ring.qtr"
check_eq "ring file: the guest's output" "$(cat "$WORK/full.out")" \
    "$(cat "$WORK/ring.out")"

records_of "$WORK/full.qtr" 'func_*' > "$WORK/full.rec"
records_of "$WORK/ring.qtr" 'func_*' > "$WORK/ring.rec"
check_tail "exit snapshot" "$WORK/ring.rec" "$WORK/full.rec"

full_n=$(wc -l < "$WORK/full.rec")
ring_n=$(wc -l < "$WORK/ring.rec")
[ "$ring_n" -lt "$full_n" ] &&
    pass "the ring kept $ring_n of the run's $full_n function records" ||
    fail "the ring kept $ring_n of $full_n function records: not fewer"
check_grep "a call to the comparison in what the ring kept" \
    ' func_entry ' "$WORK/ring.rec"
finish
