#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every qemu-instr event qtrace offers, traced by its predefined _trace
# callback (tests/instr/qi-trace-all.c), user mode on QEMU 7.2:
#   asm-ARCH: one guest_cpu_enter; the guest's four memory instructions
#     at translation (id 3); every load and store executed (id 4), per
#     address and size as the guest's construction gives them; one
#     guest_user_syscall (id 5), exit_group with the exit status as its
#     first argument (231 on x86_64, 94 on aarch64: the kernel's
#     asm/unistd_64.h and asm-generic/unistd.h), and no return (id 6);
#   threads-ARCH: five vCPUs enter (main and four workers), the four
#     workers' vCPUs exit (id 2; exit_group ends main's without an
#     event), and every system call returns but the workers' four exit
#     calls and main's exit_group.
ARCH=$1
. "$(dirname "$0")/lib.sh"
[ -n "${INSTR_TEST_LIBS:-}" ] || skip "INSTR_TEST_LIBS not set"
LIB="$INSTR_TEST_LIBS/libinstr-qi-trace-all.so"
case $ARCH in
    x86_64) EXIT_GROUP=231 ;;
    aarch64) EXIT_GROUP=94 ;;
    *) skip "no system call numbers for $ARCH here" ;;
esac

# events FILE: "id v0 v1" per user_event of the trace (decimal id).
events() {
    "$QTRACE" dump "$WORK/t.qtr" 2>/dev/null |
        awk '$3 == "user_event" && $5 == 1 { print $7, $9, $10 }' > "$1"
}
count() { awk -v id="$1" '$1 == id' "$2" | wc -l | tr -d ' '; }

# info_word SIZE load|store, as in docs/instrument.md.
info_word() {
    case $1 in 1) s=0 ;; 2) s=1 ;; 4) s=2 ;; 8) s=3 ;; esac
    [ "$2" = store ] && s=$((s + 16))
    printf '0x%x\n' "$s"
}

use_guest asm "$ARCH"
"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,instr=$LIB" "$GUEST" \
    > /dev/null 2>&1
rc=$?
check_eq "asm: exit status" "$(expect_get exit)" "$rc"
events "$WORK/asm"
check_eq "asm: guest_cpu_enter" 1 "$(count 1 "$WORK/asm")"
check_eq "asm: accesses translated" 4 "$(count 3 "$WORK/asm")"
check_eq "asm: accesses executed" \
    "$(($(expect_get loads) + $(expect_get stores)))" \
    "$(count 4 "$WORK/asm")"
for dir in load store; do
    for spec in $(expect_get ${dir}_addrs | tr ',' ' '); do
        addr=${spec%%:*}; rest=${spec#*:}; size=${rest%%:*}; n=${rest#*:}
        check_eq "asm: ${dir}s at $addr ($size bytes)" "$n" \
            "$(awk -v a="$addr" -v i="$(info_word "$size" $dir)" \
                   '$1 == 4 && $2 == a && $3 == i' "$WORK/asm" | wc -l |
               tr -d ' ')"
    done
done
check_eq "asm: the system call" \
    "$(printf '0x%x 0x%x' "$EXIT_GROUP" "$(expect_get exit)")" \
    "$(awk '$1 == 5 { print $2, $3 }' "$WORK/asm")"
check_eq "asm: no system call returns" 0 "$(count 6 "$WORK/asm")"

GUEST="$GUESTS/threads-$ARCH"
if [ -x "$GUEST" ]; then
    "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,instr=$LIB" \
        "$GUEST" > /dev/null 2>&1
    check_eq "threads: exit status" 0 "$?"
    events "$WORK/thr"
    check_eq "threads: guest_cpu_enter" 5 "$(count 1 "$WORK/thr")"
    check_eq "threads: guest_cpu_exit" 4 "$(count 2 "$WORK/thr")"
    check_eq "threads: system calls that do not return" 5 \
        "$(($(count 5 "$WORK/thr") - $(count 6 "$WORK/thr")))"
else
    echo "SKIP threads: guest threads-$ARCH not built (no static libc)"
fi
finish
