#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A real Linux boot traced: Debian's own kernel (linux-image-amd64 or
# linux-image-arm64, 6.1) with the test initramfs, on 2 vCPUs under
# MTTCG, recorded by `qtrace record --system` until the initramfs powers
# the machine off. Usage: t620-kernel-boot.sh ARCH-VERSION (x86_64-7.2,
# x86_64-10.0, aarch64-7.2).
#
# 1. Blocks and their counts, kernel code only (range=), the initramfs
#    writing the guest's /proc/kallsyms out and keeping both CPUs busy
#    for a second: QEMU exits by itself (poweroff reached, the marker on
#    the console), the trace is complete with one stream per vCPU and
#    nothing lost; --symbols with the captured kallsyms names vCPU 0's
#    start_kernel and vCPU 1's secondary entry (start_secondary on x86,
#    secondary_start_kernel on arm64), the table's own addresses (KASLR
#    included); and tb_count's per-block counts add up to the exec_tb
#    records, exactly (QEMU 7.2's shared inline counters lost executions
#    under MTTCG: tbcount.c).
# 2. The light mode, tb_count alone over the whole boot: poweroff, a
#    complete trace, instructions from the block counts.
# 3. QEMU's own boot time without the plugin, for the record.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"
use_kernel_arg t620-kernel-boot "${1:-}"
case $KARCH in
    x86_64) SECONDARY=start_secondary ;;
    aarch64) SECONDARY=secondary_start_kernel ;;
esac

# --- 1. blocks and counts of the kernel, kallsyms captured
T="$WORK/boot.qtr"
boot_kernel "$T" 2 "qtrace.kallsyms=$KSYMS_DEV qtrace.work=2" \
    -e exec_tb,tb_count -O "range=$KRANGE"
check_poweroff 2
check_complete "$T" 2

if [ "$KSYMS_DEV" = console ]; then
    kallsyms_of "$WORK/console" "$WORK/kallsyms"
else
    kallsyms_of "$WORK/serial1" "$WORK/kallsyms"
fi
n_syms=$(wc -l < "$WORK/kallsyms")
if [ "$n_syms" -gt 10000 ]; then
    pass "kallsyms captured: $n_syms text symbols"
else
    fail "kallsyms captured: $n_syms text symbols, expected thousands"
fi
check_grep "kallsyms has start_kernel" '^[0-9a-f]{16} T start_kernel$' \
    "$WORK/kallsyms"

# The first blocks of start_kernel on vCPU 0 and of the secondary entry
# on vCPU 1, each entered once: the listing is read until both are seen
# (vCPU 1's first chunk follows tens of millions of vCPU 0's blocks; one
# formatting thread and grep keep that to seconds).
"$QTRACE" dump -j 1 -e exec_tb --symbols "$WORK/kallsyms" "$T" \
    2> /dev/null |
    grep -m 2 -E "^0 .* start_kernel\+0x0\$|^1 .* $SECONDARY\+0x0\$" |
    awk '{ print $1, $NF }' > "$WORK/named"
check_eq "dump --symbols kallsyms: vCPU 0 enters start_kernel" \
    "0 start_kernel+0x0" "$(grep '^0 ' "$WORK/named")"
check_eq "dump --symbols kallsyms: vCPU 1 enters $SECONDARY" \
    "1 $SECONDARY+0x0" "$(grep '^1 ' "$WORK/named")"

blocks=$(info_count "$T" exec_tb)
counted=$("$QTRACE" dump -e tb_count "$T" |
          awk '$3 == "tb_count" { n += $7 } END { print n + 0 }')
echo "INFO exec_tb records $blocks, tb_count total $counted"
if [ "$blocks" -gt 1000000 ]; then
    pass "millions of kernel blocks ($blocks)"
else
    fail "kernel blocks: $blocks, expected millions"
fi
check_eq "tb_count adds up to the exec_tb records (2 vCPUs)" "$blocks" \
    "$counted"

# --- 2. the light mode: block counts only
boot_kernel "$WORK/light.qtr" 2 "" -e tb_count
check_poweroff 2
check_complete "$WORK/light.qtr" 0
insns=$("$QTRACE" info "$WORK/light.qtr" |
        sed -n 's/^instructions: \([0-9]*\) (from the block counts.*/\1/p')
echo "INFO light mode: ${insns:-?} instructions"
if [ "${insns:-0}" -gt 100000000 ]; then
    pass "light mode: instructions from the block counts ($insns)"
else
    fail "light mode: instructions '${insns:-}', expected hundreds of millions"
fi

# --- 3. the same boot without qtrace, for the timings
p_start=$(date +%s.%N)
# shellcheck disable=SC2086  # a word list
timeout -s KILL "$KERNEL_TIMEOUT" "$KQEMU" $KQEMU_ARGS -display none \
    -nodefaults -accel tcg,thread=multi -smp 2 -m 256 -no-reboot \
    -kernel "$KERNEL" -initrd "$INITRD" \
    -append "console=$KCONSOLE quiet panic=-1" \
    -serial "file:$WORK/console" < /dev/null > /dev/null 2>&1
p_rc=$?
echo "INFO plain boot: $(echo "$p_start $(date +%s.%N)" |
                         awk '{ printf "%.1f", $2 - $1 }') s, status $p_rc"
finish
