#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Function calls, interrupts, exceptions and system calls of a real Linux
# boot (docs/calls.md, "System mode"): Debian's kernel with the test
# initramfs on 2 vCPUs under MTTCG, recorded with exec_tb, func_* and
# trap_* (kernel code only), its kallsyms captured by the initramfs.
# Usage: t622-kernel-calls.sh ARCH-VERSION (x86_64-7.2, x86_64-10.0,
# aarch64-7.2).
#
# What is checked, each against something the call tracker does not
# compute:
#   - report --functions names start_kernel (entered once: x86 reaches
#     it by a tail jump), cpu_startup_entry once per vCPU, and do_idle
#     with as many calls as the exec_tb records of the block at do_idle's
#     first address (the same boot, counted by dump);
#   - no retpoline or return thunk is a function (x86);
#   - frames the tracker closed without their return (func_exit kind 1)
#     are a small part of all exits;
#   - trap_entry: interrupts and exceptions taken in the kernel enter
#     its entry stubs (by kallsyms) and nothing else; interrupts and
#     exceptions (kind 0) into the kernel's handlers, system calls (kind 2) of the initramfs's userland, each
#     read from the kallsyms addresses of the handlers; on QEMU 10.0 the
#     x86 vectors of the page fault (14) and of the local timer (236,
#     LOCAL_TIMER_VECTOR); on aarch64 the vector table's entries (IRQ
#     from the kernel: 5; from user code, synchronous: 8).
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"
use_kernel_arg t622-kernel-calls "${1:-}"
QV=${1##*-}

T="$WORK/calls.qtr"
boot_kernel "$T" 2 "qtrace.kallsyms=$KSYMS_DEV qtrace.work=2" \
    -e 'exec_tb,func_*,trap_*' -O "range=$KRANGE"
check_poweroff 2
check_complete "$T" 2
if [ "$KSYMS_DEV" = console ]; then
    kallsyms_of "$WORK/console" "$WORK/kallsyms"
else
    kallsyms_of "$WORK/serial1" "$WORK/kallsyms"
fi
K="$WORK/kallsyms"
check_grep "kallsyms has do_idle" '^[0-9a-f]{16} [tT] do_idle$' "$K"

# addr NAME: the kallsyms address of NAME as dump writes it (0x...).
addr() {
    awk -v n="$1" '$3 == n { print "0x" $1; exit }' "$K"
}

# --- functions
"$QTRACE" report --functions --symbols "$K" "$T" > "$WORK/functions" \
    2> "$WORK/functions.err"
check_eq "report --functions: status" 0 "$?"
check_eq "report --functions: stderr" "" "$(cat "$WORK/functions.err")"
# calls NAME: the CALLS column of NAME's row.
calls() {
    awk -v n="$1" 'NR > 2 && $4 == n && NF == 4 { print $3 }' \
        "$WORK/functions"
}
check_eq "start_kernel: entered once" 1 "$(calls start_kernel)"
check_eq "cpu_startup_entry: once per vCPU" 2 "$(calls cpu_startup_entry)"
idle=$(calls do_idle)
a=$(addr do_idle)
blocks=$("$QTRACE" dump -e exec_tb "$T" | grep -cF " exec_tb pc $a ")
echo "INFO do_idle: $idle calls, its first block executed $blocks times"
if [ "${idle:-0}" -gt 10 ]; then
    pass "do_idle called ($idle times)"
else
    fail "do_idle: '${idle:-}' calls, expected many"
fi
check_eq "do_idle's calls = executions of its first block (exec_tb)" \
    "$blocks" "${idle:-}"
if [ "$KARCH" = x86_64 ]; then
    check_eq "no thunk is a function" "" \
        "$(awk 'NR > 2 { print $4 }' "$WORK/functions" |
           grep -E '^(__x86_indirect_thunk|__x86_return_thunk|__x86_indirect_call_thunk)' |
           head -3)"
fi

# Exits by kind: 0 returns, 1 frames closed without their return.
"$QTRACE" dump -e func_exit "$T" |
    awk '$3 == "func_exit" { n[$11]++ } END { print n[0] + 0, n[1] + 0 }' \
        > "$WORK/exits"
read -r returns unwound < "$WORK/exits"
echo "INFO func_exit: $returns returns, $unwound closed without one"
if [ "$returns" -gt 1000000 ] && [ $((unwound * 50)) -lt "$returns" ]; then
    pass "closed without a return: $unwound, under 2% of $returns"
else
    fail "closed without a return: $unwound of $returns returns"
fi

# --- traps
"$QTRACE" dump -e trap_entry,trap_return "$T" > "$WORK/traps"
count_kind() {
    awk -v k="$1" '$3 == "trap_entry" && $11 == k' "$WORK/traps" | wc -l
}
returns=$(grep -c ' trap_return ' "$WORK/traps")
echo "INFO trap_entry: $(count_kind 0) interrupts and exceptions," \
     "$(count_kind 1) raised, $(count_kind 2) system calls;" \
     "trap_return: $returns"
# Interrupts and exceptions taken in the kernel enter its handlers: the
# kallsyms symbol at or below each one's pc is an entry stub (x86) or
# an entry of a vector table (aarch64), hardly ever other code (a block
# QEMU knows at another address, a return thunk's physical alias, is
# not a trap).
case $KARCH in
    x86_64) STUBS='^(asm_[a-z0-9_]+|irq_entries_start|spurious_entries_start|early_idt_handler_array)$' ;;
    aarch64) STUBS='^vectors$' ;;
esac
{
    awk '{ print $1, "S", $3 }' "$K"
    awk '$3 == "trap_entry" && $11 == 0 && substr($7, 1, 6) == "0xffff" {
             p = substr($5, 3); while (length(p) < 16) p = "0" p
             print p, "T" }' "$WORK/traps"
} | LC_ALL=C sort | awk '$2 == "S" { s = $3 } $2 == "T" { print s }' |
    sort | uniq -c | sort -rn > "$WORK/handlers"
echo "INFO code entered by traps taken in the kernel:" \
     "$(awk '{ printf "%s %s, ", $2, $1 }' "$WORK/handlers")"
stubs=$(awk '{ print $2, $1 }' "$WORK/handlers" | grep -E "${STUBS%\$} " |
        awk '{ n += $2 } END { print n + 0 }')
other=$(awk '{ print $2, $1 }' "$WORK/handlers" | grep -Ev "${STUBS%\$} " |
        awk '{ n += $2 } END { print n + 0 }')
if [ "$KARCH" = aarch64 ]; then
    # An entry of a vector table (the kernel's, or KPTI's trampoline,
    # which kallsyms places nowhere) is 0x80-aligned: its vector is known.
    stubs=$(awk '$3 == "trap_entry" && $11 == 0 &&
                 substr($7, 1, 6) == "0xffff" && $9 >= 0' "$WORK/traps" |
            wc -l)
    other=$(awk '$3 == "trap_entry" && $11 == 0 &&
                 substr($7, 1, 6) == "0xffff" && $9 < 0' "$WORK/traps" |
            wc -l)
fi
# The few elsewhere (about 100 a boot on x86_64, in the serial driver
# and the scheduler) do not grow with the interrupts, whose number moves
# threefold with the host's timing (8175 and 26543 in two boots): a
# bound of 2% of them.
if [ "$stubs" -gt 1000 ] && [ $((other * 50)) -lt "$stubs" ]; then
    pass "traps taken in the kernel enter its handlers: $stubs, elsewhere $other (under 2%)"
else
    fail "traps taken in the kernel: $stubs into handlers, $other elsewhere"
fi
case $KARCH in
    x86_64) PF=asm_exc_page_fault; TIMER=asm_sysvec_apic_timer_interrupt
            SYSCALL=entry_SYSCALL_64 ;;
    aarch64) PF=""; TIMER=""; SYSCALL="" ;;
esac
if [ "$KARCH" = x86_64 ]; then
    for h in $PF $TIMER; do
        n=$(grep -cF " trap_entry pc $(addr "$h") " "$WORK/traps")
        if [ "$n" -gt 10 ]; then
            pass "trap_entry into $h: $n"
        else
            fail "trap_entry into $h: $n, expected many"
        fi
    done
    n=$(grep -F " trap_entry pc $(addr $SYSCALL) " "$WORK/traps" |
        awk '$11 == 2 && $13 == 1' | wc -l)
    if [ "$n" -gt 100 ]; then
        pass "system calls from user code into $SYSCALL: $n"
    else
        fail "system calls from user code into $SYSCALL: $n"
    fi
    if [ "$QV" = 10.0 ]; then
        # Known (14) for most; -1 where the IDT was not readable then.
        grep -F " trap_entry pc $(addr $PF) " "$WORK/traps" |
            awk '{ n[$9]++ } END { print n[14] + 0, n[-1] + 0, NR }' \
            > "$WORK/pf"
        read -r pf14 pfunknown pfall < "$WORK/pf"
        echo "INFO page faults: $pfall, vector 14: $pf14, unknown: $pfunknown"
        if [ "$pf14" -gt 0 ] && [ $((pf14 + pfunknown)) -eq "$pfall" ] &&
           [ $((pfunknown * 10)) -lt "$pfall" ]; then
            pass "QEMU 10.0: the page fault's vector (IDT): 14 ($pf14 of $pfall)"
        else
            fail "QEMU 10.0: page faults' vectors: $pf14 of $pfall are 14, $pfunknown unknown"
        fi
        check_eq "QEMU 10.0: the local timer's vector (IDT)" 236 \
            "$(grep -F " trap_entry pc $(addr $TIMER) " "$WORK/traps" |
               awk '{ print $9 }' | sort -u)"
    else
        check_eq "QEMU 7.2: interrupts' vectors unknown (-1)" -1 \
            "$(grep -F " trap_entry pc $(addr $TIMER) " "$WORK/traps" |
               awk '{ print $9 }' | sort -u)"
    fi
else
    n=$(awk '$3 == "trap_entry" && $11 == 0 && $9 == 5' "$WORK/traps" |
        wc -l)
    if [ "$n" -gt 10 ]; then
        pass "IRQs taken in the kernel (vector table entry 5): $n"
    else
        fail "IRQs taken in the kernel (vector table entry 5): $n"
    fi
    n=$(awk '$3 == "trap_entry" && $11 == 2 && $9 == 8 && $13 == 1' \
            "$WORK/traps" | wc -l)
    if [ "$n" -gt 100 ]; then
        pass "svc from user code (vector table entry 8): $n"
    else
        fail "svc from user code (vector table entry 8): $n"
    fi
fi
finish
