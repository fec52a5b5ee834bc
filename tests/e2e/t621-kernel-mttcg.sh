#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# MTTCG under stress: Debian's x86_64 kernel on 4 vCPUs (-accel
# tcg,thread=multi) with three PCI devices, whose set-up changes the
# memory map while the other vCPUs take interrupts, once under each mode:
# blocks (exec_tb), blocks and accesses of the kernel (exec_tb,mem_access
# with range=: where QEMU 7.2 died of SIGSEGV in every such boot before
# the plugin stopped asking it for device names, plugin.c), calls
# (func_*) and counts (tb_count). Each boot must reach its poweroff with
# 4 CPUs, and its trace be complete with one stream per vCPU and nothing
# lost. The many-boots variant is bench/kernel-stress.sh.
# Usage: t621-kernel-mttcg.sh 7.2|10.0.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"
case ${1:-} in
    7.2|10.0) ;;
    *) echo "usage: t621-kernel-mttcg.sh 7.2|10.0" >&2; exit 2 ;;
esac
TEST_NAME=t621-kernel-mttcg-$1
use_kernel x86_64 "$1"
DEVICES="-device virtio-rng-pci -device virtio-balloon-pci -device pci-testdev"

for mode in blocks blocks+mem calls counts; do
    streams=4
    case $mode in
        blocks) set -- -e exec_tb ;;
        blocks+mem) set -- -e exec_tb,mem_access -O "range=$KRANGE" ;;
        calls) set -- -e 'func_*' ;;
        counts) set -- -e tb_count; streams=0 ;;
    esac
    echo "--- $mode"
    # DEVICES is a word list: split on purpose.
    # shellcheck disable=SC2086
    boot_kernel "$WORK/t.qtr" 4 "qtrace.work=4" "$@" -- $DEVICES
    check_poweroff 4
    check_complete "$WORK/t.qtr" "$streams"
done
finish
