#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qi_ctrl_event_set() at run time, on asm-ARCH (user mode, one vCPU):
# a test library (tests/instr/qi-switch.c) asks for every memory access's
# execution and, after the Nth, sets
#   guest_mem_before_exec to NULL: an execution-time change, effective
#     at the next access;
#   guest_mem_before_trans to NULL: a translation-time change, for which
#     qtrace flushes QEMU's translations once the running block ends: the
#     rest of that loop iteration still counts, then the loop block,
#     translated again without the callback, counts no more.
# So exactly N executions are seen (exec), or N up to the end of its
# iteration (trans; without the flush the guest's loop would give all
# its loads and stores). The plugin's own records
# survive the flush: the loop block's executions still match the guest.
# Never switched, every load and store of the guest is seen, each in its
# direction only (QEMU 7.2's own direction filter is not to be trusted).
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_TEST_LIBS:-}" ] || skip "INSTR_TEST_LIBS not set"
SWITCH="$INSTR_TEST_LIBS/libinstr-qi-switch.so"

# The loop makes one load and one store per iteration: N = 7 stops in
# the middle of an iteration, 10 at its end; 1000000 is never reached.
for mode in exec trans; do
    for n in 7 10 1000000; do
        rm -f "$WORK/count"
        "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,events=exec_tb,instr=$SWITCH,instr-arg=mode=$mode,instr-arg=after=$n,instr-arg=out=$WORK/count" \
            "$GUEST" > /dev/null 2> "$WORK/err"
        rc=$?
        check_eq "$mode after $n: exit status" "$(expect_get exit)" "$rc"
        want=$n
        [ "$mode" = trans ] && want=$(((n + 1) / 2 * 2))
        [ "$n" -eq 1000000 ] && want=$(($(expect_get loads) + $(expect_get stores)))
        check_eq "$mode after $n: executions seen" "executed $want" \
            "$(cat "$WORK/count" 2>/dev/null)"
        loop=$(expect_get loop_pc)
        check_eq "$mode after $n: loop block executions in the trace" \
            "$(expect_get loop_count)" \
            "$("$QTRACE" dump -e exec_tb "$WORK/t.qtr" 2>/dev/null |
               awk -v pc="$loop" '$3 == "exec_tb" && $5 == pc' | wc -l)"
    done
done
finish
