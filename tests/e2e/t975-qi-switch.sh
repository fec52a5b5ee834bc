#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qi_ctrl_event_set() at run time, on one vCPU: a test library
# (tests/instr/qi-switch.c) asks for every memory access's execution and,
# after the Nth, sets
#   guest_mem_before_exec to NULL: an execution-time change, effective
#     at the next access;
#   guest_mem_before_trans to NULL: a translation-time change, for which
#     qtrace flushes QEMU's translations once the running block ends: the
#     rest of that loop iteration still counts, then the loop block,
#     translated again without the callback, counts no more.
# So exactly N executions are seen (exec), or N up to the end of its
# iteration (trans; without the flush the guest's loop would give all
# its loads and stores). The plugin's own records survive the flush: the
# loop block's executions still match the guest. Never switched, every
# load and store of the guest is seen, each in its direction only (QEMU
# 7.2's own direction filter is not to be trusted).
# Usage: t975-qi-switch.sh ARCH (asm-ARCH, user mode, QEMU 7.2) or
# system-7.2|system-10.0 (boot-x86 as the pc's firmware).
PART=$1
case $PART in
    system-*) ARCH= ;;
    *) ARCH=$PART ;;
esac
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/boot-lib.sh"
TEST_NAME=t975-qi-switch-$PART
[ -n "${INSTR_TEST_LIBS:-}" ] || skip "INSTR_TEST_LIBS not set"
SWITCH="$INSTR_TEST_LIBS/libinstr-qi-switch.so"

# run OPTIONS: the guest under the plugin with OPTIONS; status in rc.
case $PART in
    system-7.2|system-10.0)
        use_boot_x86 "${PART#system-}"
        # The loop block: its first instruction loads from load_addrs.
        from=$(expect_get load_addrs | cut -d: -f1)
        LOOP=$(objdump -D -b binary -m i8086 --stop-address=0x40 "$GUEST" |
               awk -v a="$from" '/^ *[0-9a-f]+:/ && $0 ~ ("[ \t]" a ",") {
                                     sub(":", "", $1); print $1; exit }')
        LOOP=$(printf '0x%x' $(($(expect_get base) + 0x$LOOP)))
        LOOPS=$(expect_get load_addrs | cut -d: -f3)
        run() { run_boot_x86 "$1"; } ;;
    system-*) echo "usage: t975-qi-switch.sh ARCH|system-7.2|system-10.0" >&2
              exit 2 ;;
    *)
        use_guest asm "$ARCH"
        LOOP=$(expect_get loop_pc)
        LOOPS=$(expect_get loop_count)
        run() {
            "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,$1" "$GUEST" \
                > /dev/null 2> "$WORK/err"
            rc=$?
        } ;;
esac

# The loop makes one load and one store per iteration: N = 7 stops in
# the middle of an iteration, 10 at its end; 1000000 is never reached.
for mode in exec trans; do
    for n in 7 10 1000000; do
        rm -f "$WORK/count"
        run "out=$WORK/t.qtr,events=exec_tb,instr=$SWITCH,instr-arg=mode=$mode,instr-arg=after=$n,instr-arg=out=$WORK/count"
        check_eq "$mode after $n: exit status" "$(expect_get exit)" "$rc"
        want=$n
        [ "$mode" = trans ] && want=$(((n + 1) / 2 * 2))
        [ "$n" -eq 1000000 ] &&
            want=$(($(expect_get loads) + $(expect_get stores)))
        check_eq "$mode after $n: executions seen" "executed $want" \
            "$(cat "$WORK/count" 2>/dev/null)"
        check_eq "$mode after $n: loop block executions in the trace" \
            "$LOOPS" \
            "$("$QTRACE" dump -e exec_tb "$WORK/t.qtr" 2>/dev/null |
               awk -v pc="$LOOP" '$3 == "exec_tb" && $5 == pc' | wc -l |
               tr -d ' ')"
    done
done
finish
