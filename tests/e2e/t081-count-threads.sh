#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tb_count with guest threads running the same loop at once
# (tests/guests/spin-threads.c, 4 threads of 2000000 iterations) on ARCH,
# in user mode, where each thread is a vCPU running in parallel. QEMU 7.2
# adds to one inline counter per block for all vCPUs without atomics
# (here a quarter of the loop's executions went missing): from the second
# thread on, the plugin counts per vCPU instead (plugin/tbcount.h).
#   1. exec_tb and tb_count together: the counts add up to the exec_tb
#      records, exactly;
#   2. tb_count alone: at least the 4 x 2000000 executions of the loop,
#      and the instructions summed from the counts.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest spin-threads "$ARCH"
THREADS=4
ITERATIONS=2000000

# sum_counts TRACE: the executions tb_count records add up to.
sum_counts() {
    "$QTRACE" dump -e tb_count "$1" |
        awk '$3 == "tb_count" { n += $7 } END { print n + 0 }'
}

T="$WORK/t.qtr"
"$QTRACE" record -q -e 'exec_tb,tb_count' -o "$T" -- "$GUEST" "$THREADS" \
    "$ITERATIONS" > "$WORK/out" 2>&1
check_eq "exec_tb,tb_count: exit status" 0 "$?"
check_eq "the guest's line" "$THREADS x $ITERATIONS" "$(cat "$WORK/out")"
blocks=$(info_count "$T" exec_tb)
if [ "$blocks" -ge $((THREADS * ITERATIONS)) ]; then
    pass "exec_tb records: $blocks"
else
    fail "exec_tb records: $blocks, fewer than the loop's executions"
fi
check_eq "tb_count adds up to the exec_tb records" "$blocks" \
    "$(sum_counts "$T")"

"$QTRACE" record -q -e 'tb_count' -o "$T" -- "$GUEST" "$THREADS" \
    "$ITERATIONS" > "$WORK/out" 2>&1
check_eq "tb_count: exit status" 0 "$?"
counted=$(sum_counts "$T")
if [ "$counted" -ge $((THREADS * ITERATIONS)) ] &&
   [ "$counted" -le $((THREADS * ITERATIONS + 100000)) ]; then
    pass "tb_count alone: $counted executions"
else
    fail "tb_count alone: $counted executions, expected" \
         "$((THREADS * ITERATIONS)) and a little more"
fi
"$QTRACE" info "$T" > "$WORK/info"
check_grep "info: instructions from the block counts" \
    '^instructions: [0-9]+ \(from the block counts; no vCPU streams\)$' \
    "$WORK/info"
finish
