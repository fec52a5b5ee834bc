#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ring= in system mode, on QEMU 7.2 (Debian's) or 10.0 (QEMU10_DIR).
# The x86 firmware guest (boot-x86, known by construction) recorded in
# full and with a ring: the ring, big enough for the whole run, holds
# exactly the full trace's records (blocks and accesses, with their
# physical addresses and values where QEMU gives them), and its END says
# nothing was dropped. Then the pc machine's BIOS, which waits for a
# boot device and runs on: a `snapshot FILE` from the control socket
# reads on its own, the rings have dropped records by then, and after
# SIGTERM the trace reads to its END with the vCPU's times in order.
# Usage: t998-ring-system.sh 7.2|10.0.
PART=${1:?usage: t998-ring-system.sh 7.2|10.0}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
TEST_NAME=t998-ring-system-$PART
# shellcheck source=tests/e2e/boot-lib.sh
. "$(dirname "$0")/boot-lib.sh"
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"
# shellcheck source=tests/e2e/ring-lib.sh
. "$(dirname "$0")/ring-lib.sh"

use_boot_x86 "$PART"
EVENTS="exec_tb;mem_access"

run_boot_x86 "out=$WORK/full.qtr,events=$EVENTS"
check_eq "full: exit status" "$(expect_get exit)" "$rc"
run_boot_x86 "out=$WORK/ring.qtr,events=$EVENTS,chunk=64k,ring=128k"
check_eq "ring: exit status" "$(expect_get exit)" "$rc"
check_reads "boot-x86 ring file" "$WORK/ring.qtr"
check_eq "boot-x86: nothing dropped" 0 \
    "$(end_key "$WORK/ring.qtr" ring_dropped)"
# QEMU 10.0 may or may not enter the hlt's block (at time insns=508)
# before the exit port ends it: the records before it are the run's.
INSNS=$(expect_get insns)
records_of "$WORK/full.qtr" exec_tb,mem_access |
    awk -v n="$INSNS" '$2 < n' > "$WORK/full.rec"
records_of "$WORK/ring.qtr" exec_tb,mem_access |
    awk -v n="$INSNS" '$2 < n' > "$WORK/ring.rec"
check_eq "boot-x86: blocks in the ring" "$(expect_get blocks_executed)" \
    "$(grep -c ' exec_tb ' "$WORK/ring.rec")"
if cmp -s "$WORK/full.rec" "$WORK/ring.rec"; then
    pass "boot-x86: the ring's records are the full trace's"
else
    fail "boot-x86: the ring's records differ from the full trace's:"
    diff "$WORK/full.rec" "$WORK/ring.rec" | head -5 | sed 's/^/    /'
fi

# The BIOS runs on: what the rings give up, and a snapshot mid-run.
SOCK=$WORK/c.sock
# BOOT_QEMU is a word list: split on purpose.
# shellcheck disable=SC2086
$BOOT_QEMU -display none -nodefaults -machine pc -accel tcg -m 128 \
    -no-reboot -plugin \
    "$QTRACE_PLUGIN,ctl=$SOCK,out=$WORK/bios.qtr,chunk=64k,ring=128k" \
    > /dev/null 2> "$WORK/bios.err" &
QEMU_PID=$!
ctl_wait_socket "$SOCK"
sleep 1
"$QTRACE" ctl "$SOCK" snapshot "$WORK/mid.qtr" > "$WORK/snap.out" 2>&1
check_eq "snapshot FILE: status" 0 $?
check_grep "snapshot FILE: the rings dropped records by then" \
    "^ring_dropped [1-9]" "$WORK/snap.out"
kill -TERM "$QEMU_PID"
wait "$QEMU_PID"
check_reads "snapshot FILE" "$WORK/mid.qtr"
check_eq "snapshot FILE: END exit" snapshot "$(end_key "$WORK/mid.qtr" exit)"
check_reads "BIOS trace" "$WORK/bios.qtr"
records_of "$WORK/bios.qtr" exec_tb > "$WORK/bios.rec"
if [ -s "$WORK/bios.rec" ] &&
    awk '{ if ($1 in t && $2 < t[$1]) bad = 1; t[$1] = $2 }
         END { exit bad }' "$WORK/bios.rec"; then
    pass "BIOS trace: $(wc -l < "$WORK/bios.rec") blocks, times in order"
else
    fail "BIOS trace: no blocks, or times out of order"
fi
finish
