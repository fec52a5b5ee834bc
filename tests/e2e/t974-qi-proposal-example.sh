#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The qemu-instr proposal's example library (examples/instrument/
# qi-proposal-example.c) hosted by libqtrace.so, on a guest whose accesses
# are known by construction. It must do what the proposal says:
#   - qi_init prints "init!", argc and argv (argv[0]: the library's path,
#     then the instr-arg values); qi_fini prints "fini!" on stderr;
#   - every translated memory access is traced once (user_event id 3,
#     v0 its instruction's address, v1 the info word): the guest's
#     memory instructions as objdump lists them, with the sizes and
#     directions of the guest's construction;
#   - only stores reach guest_mem_before_exec, which traces them
#     (id 4, v0 the address, v1 the info word): exactly the guest's
#     stores per address and size, and no load;
#   - guest_cpu_enter is traced once (id 1) for the one vCPU.
# Usage: t974-qi-proposal-example.sh x86_64|aarch64 (user mode, QEMU 7.2,
# asm-ARCH) or system-7.2|system-10.0 (boot-x86 as the pc's firmware).
PART=$1
case $PART in
    system-*) ARCH= ;;
    *) ARCH=$PART ;;
esac
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/boot-lib.sh"
TEST_NAME=t974-qi-proposal-example-$PART
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
EXAMPLE="$INSTR_EXAMPLES/libqtrace-qi-proposal-example.so"
ID_CPU_ENTER=1
ID_MEM_TRANS=3
ID_MEM_EXEC=4

# info_word SIZE load|store: the info word docs/instrument.md defines.
info_word() {
    case $1 in 1) s=0 ;; 2) s=1 ;; 4) s=2 ;; 8) s=3 ;; esac
    [ "$2" = store ] && s=$((s + 16))
    printf '0x%x\n' "$s"
}

# mem_insns_user: the addresses of the guest's memory instructions, from
# objdump (x86_64: a %rip-relative operand; aarch64: a [base] operand).
mem_insns_user() {
    "$OBJDUMP" -d "$GUEST" | awk -v arch="$ARCH" '
        /^ *[0-9a-f]+:/ && ((arch == "x86_64" && /\(%rip\)/) ||
                            (arch != "x86_64" && /\[x[0-9]+/)) {
            sub(":", "", $1); print "0x" $1 }'
}

# mem_insns_system: the same in the 16-bit firmware image: an operand
# that is a bare address (not $immediate, not %register) and no jump.
mem_insns_system() {
    base=$(expect_get base)
    for off in $(objdump -D -b binary -m i8086 --stop-address=0x40 "$GUEST" |
                 awk '/^ *[0-9a-f]+:/ && $0 ~ /[ ,]0x[0-9a-f]+(,|$)/ &&
                      $0 !~ /\tj/ { sub(":", "", $1); print $1 }'); do
        printf '0x%x\n' $((base + 0x$off))
    done
}

run_user() {
    use_guest asm "$ARCH"
    OBJDUMP=$ARCH-linux-gnu-objdump
    command -v "$OBJDUMP" > /dev/null 2>&1 ||
        { [ "$(uname -m)" = "$ARCH" ] && OBJDUMP=objdump; } ||
        skip "no objdump for $ARCH (Debian package binutils-$ARCH-linux-gnu)"
    "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,instr=$EXAMPLE,instr-arg=foo,instr-arg=bar" \
        "$GUEST" > "$WORK/out" 2> "$WORK/err"
    rc=$?
    check_eq "exit status passed through" "$(expect_get exit)" "$rc"
    mem_insns_user > "$WORK/insns"
}

run_system() {
    use_boot_x86 "${PART#system-}"
    run_boot_x86 "out=$WORK/t.qtr,instr=$EXAMPLE,instr-arg=foo,instr-arg=bar"
    check_eq "exit status from the guest's debug-exit" "$(expect_get exit)" \
        "$rc"
    mem_insns_system > "$WORK/insns"
}

case $PART in
    system-7.2|system-10.0) run_system ;;
    system-*) echo "usage: t974-qi-proposal-example.sh ARCH|system-7.2|system-10.0" >&2
              exit 2 ;;
    *) run_user ;;
esac

# qi_init's and qi_fini's output.
printf 'init!\n argc :: 3\n -> %s\n -> foo\n -> bar\n' "$EXAMPLE" \
    > "$WORK/want-out"
check_eq "qi_init printed argc and argv" "$(cat "$WORK/want-out")" \
    "$(cat "$WORK/out")"
check_grep "qi_fini printed" '^fini!$' "$WORK/err"

"$QTRACE" dump "$WORK/t.qtr" 2> "$WORK/dump.err" |
    awk '$3 == "user_event" && $5 == 1 { print $7, $9, $10 }' \
    > "$WORK/events"
check_eq "qtrace dump status" 0 "$(wc -l < "$WORK/dump.err" | tr -d ' ')"

check_eq "guest_cpu_enter traced once" 1 \
    "$(awk -v id=$ID_CPU_ENTER '$1 == id' "$WORK/events" | wc -l)"

# Translation: the memory instructions in address order make the loop's
# load and store, then the tail's (the first and the second entries of
# load_addrs and store_addrs; boot-x86's tail only stores).
first() { expect_get "$1" | cut -d, -f"$2" | cut -d: -f2; }
{
    if [ -n "$ARCH" ]; then
        info_word "$(first load_addrs 1)" load
        info_word "$(first store_addrs 1)" store
        info_word "$(first load_addrs 2)" load
        info_word "$(first store_addrs 2)" store
    else
        info_word "$(first load_addrs 1)" load
        info_word "$(first store_addrs 1)" store
        info_word "$(first store_addrs 2)" store
    fi
} | paste -d' ' "$WORK/insns" - > "$WORK/want-trans"
awk -v id=$ID_MEM_TRANS '$1 == id { print $2, $3 }' "$WORK/events" |
    sort > "$WORK/got-trans"
check_eq "memory instructions found by objdump" 1 \
    "$([ -s "$WORK/insns" ] && echo 1 || echo 0)"
check_eq "translated accesses (instruction, info)" \
    "$(sort "$WORK/want-trans" | tr '\n' ' ')" \
    "$(tr '\n' ' ' < "$WORK/got-trans")"

# Execution: the stores per address and size, nothing else.
for spec in $(expect_get store_addrs | tr ',' ' '); do
    addr=${spec%%:*}; rest=${spec#*:}; size=${rest%%:*}; count=${rest#*:}
    check_eq "executed stores to $addr ($size bytes)" "$count" \
        "$(awk -v id=$ID_MEM_EXEC -v a="$addr" \
               -v i="$(info_word "$size" store)" \
               '$1 == id && $2 == a && $3 == i' "$WORK/events" | wc -l)"
done
check_eq "executed accesses traced (stores only)" "$(expect_get stores)" \
    "$(awk -v id=$ID_MEM_EXEC '$1 == id' "$WORK/events" | wc -l)"
finish
