#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ring=: a guest that dies of a signal leaves the last moments before
# its death. The crash guest (tests/guests/crash.c) stores through NULL
# after a while of spinning: recorded with blocks and accesses once in
# full and once with a ring of two chunks, the ring file must read to its
# END (exit=signal, signal=11), its records must be the full trace's
# last ones and its last block must lie in crash_store (by nm).
# Usage: t998-ring-crash.sh ARCH.
ARCH=${1:?usage: t998-ring-crash.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ring-lib.sh
. "$(dirname "$0")/ring-lib.sh"

use_guest crash "$ARCH"
# QEMU writes the guest's core file into the current directory otherwise.
ulimit -c 0
cd "$WORK" || exit 1
NM=$(command -v "$ARCH-linux-gnu-nm" || command -v nm)
[ -n "$NM" ] || skip "no nm (Debian package binutils)"
EVENTS="exec_tb;mem_access"

# run TAG MORE_OPTS: the guest's NULL store, under the plugin.
run() {
    "qemu-$ARCH" -plugin \
        "$QTRACE_PLUGIN,out=$WORK/$1.qtr,events=$EVENTS,chunk=64k$2" \
        "$GUEST" segv > /dev/null 2> "$WORK/$1.err"
    check_eq "$1: guest dies of SIGSEGV (status)" 139 $?
}

run full ""
run ring ",ring=128k"
check_reads "ring file" "$WORK/ring.qtr"
check_eq "ring file: END exit" signal "$(end_key "$WORK/ring.qtr" exit)"
check_eq "ring file: END signal" 11 "$(end_key "$WORK/ring.qtr" signal)"
dropped=$(end_key "$WORK/ring.qtr" ring_dropped)
if [ "${dropped:-0}" -gt 0 ]; then
    pass "END ring_dropped=$dropped: the ring did not hold the whole run"
else
    fail "END ring_dropped='$dropped': the ring held the whole run"
fi

records_of "$WORK/full.qtr" exec_tb,mem_access > "$WORK/full.rec"
records_of "$WORK/ring.qtr" exec_tb,mem_access > "$WORK/ring.rec"
check_tail "crash snapshot" "$WORK/ring.rec" "$WORK/full.rec"

# The last block: in crash_store, by the guest's symbol table.
pc=$(awk '$3 == "exec_tb" { pc = $5 } END { print pc }' "$WORK/ring.rec")
range=$("$NM" -S "$GUEST" | awk '$4 == "crash_store" { print $1, $2 }')
# shellcheck disable=SC2086
set -- $range
if [ -n "$pc" ] && [ $# -eq 2 ] && [ $((pc)) -ge $((0x$1 & ~1)) ] &&
    [ $((pc)) -lt $((0x$1 + 0x$2)) ]; then
    pass "the ring's last block $pc is in crash_store"
else
    fail "the ring's last block '$pc' is not in crash_store ($range)"
fi
finish
