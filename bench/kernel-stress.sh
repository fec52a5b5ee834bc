#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# MTTCG stress, the many-boots variant of tests/e2e/t621-kernel-mttcg.sh:
# Debian's x86_64 kernel (make kernels) booted N times under every mode on
# 4 vCPUs (-accel tcg,thread=multi) with three PCI devices, on QEMU 7.2
# and 10.0 (make qemu10), each boot through `qtrace record --system`.
# A boot is good when QEMU exits 0 after the initramfs's poweroff with 4
# CPUs online and the trace is complete, with one stream per vCPU (none
# for counts) and nothing lost. Prints a line per boot, then per QEMU and
# mode: boots, good ones, the statuses of the others, median seconds.
# A boot still running after 300 s is killed (timeout). Exits 1 if any
# boot was not good.
#
# Usage: kernel-stress.sh [-n BOOTS] [-q VERSIONS] [-m MODES] BUILD_DIR
#   -n BOOTS     boots per QEMU and mode (default 10)
#   -q VERSIONS  comma-separated, of 7.2 and 10.0 (default both)
#   -m MODES     comma-separated, of blocks, blocks+mem, calls, counts
#                (default all)
set -u

boots=10
versions=7.2,10.0
modes=blocks,blocks+mem,calls,counts
while getopts n:q:m: opt; do
    case $opt in
        n) boots=$OPTARG ;;
        q) versions=$OPTARG ;;
        m) modes=$OPTARG ;;
        *) echo "usage: kernel-stress.sh [-n BOOTS] [-q VERSIONS]" \
                "[-m MODES] BUILD_DIR" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -ne 1 ]; then
    echo "usage: kernel-stress.sh [-n BOOTS] [-q VERSIONS] [-m MODES]" \
         "BUILD_DIR" >&2
    exit 2
fi
BUILD=$(cd "$1" && pwd) || exit 2
QTRACE=$BUILD/src/cli/qtrace
KDIR=$BUILD/kernels/x86_64
Q10=$BUILD/qemu10/root
[ -x "$QTRACE" ] || { echo "kernel-stress: $QTRACE: not built" >&2; exit 2; }
[ -s "$KDIR/kernel" ] && [ -s "$KDIR/initramfs.gz" ] || {
    echo "kernel-stress: no kernel in $KDIR (make kernels)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kernel-stress.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
: > "$WORK/results"

for i in $(seq 1 "$boots"); do
    for v in $(echo "$versions" | tr ',' ' '); do
        case $v in
            7.2) qemu=$(command -v qemu-system-x86_64) || {
                     echo "kernel-stress: no qemu-system-x86_64" >&2
                     exit 2; }
                 fw="" ;;
            10.0) qemu=$Q10/usr/bin/qemu-system-x86_64
                  [ -x "$qemu" ] || {
                      echo "kernel-stress: no QEMU 10.0 in $Q10" \
                           "(make qemu10)" >&2; exit 2; }
                  fw="-L $Q10/usr/share/qemu -L $Q10/usr/share/seabios" ;;
            *) echo "kernel-stress: no QEMU $v (7.2, 10.0)" >&2; exit 2 ;;
        esac
        for m in $(echo "$modes" | tr ',' ' '); do
            streams=4
            case $m in
                blocks) set -- -e exec_tb ;;
                blocks+mem) set -- -e exec_tb,mem_access \
                    -O range=0xffffffff80000000-0xffffffffffffffff ;;
                calls) set -- -e 'func_*' ;;
                counts) set -- -e tb_count; streams=0 ;;
                *) echo "kernel-stress: unknown mode $m" >&2; exit 2 ;;
            esac
            start=$(date +%s.%N)
            # fw is a word list: split on purpose.
            # shellcheck disable=SC2086
            timeout -s KILL 300 "$QTRACE" record --system --qemu "$qemu" \
                --arch x86_64 --kernel "$KDIR/kernel" \
                --initrd "$KDIR/initramfs.gz" \
                --append "console=ttyS0 quiet panic=-1 qtrace.work=4" \
                -o "$WORK/t.qtr" -q "$@" -- $fw -machine pc -display none \
                -nodefaults -accel tcg,thread=multi -smp 4 -m 256 \
                -no-reboot -serial "file:$WORK/console" \
                -device virtio-rng-pci -device virtio-balloon-pci \
                -device pci-testdev < /dev/null > /dev/null \
                2> "$WORK/err"
            rc=$?
            secs=$(echo "$start $(date +%s.%N)" |
                   awk '{ printf "%.1f", $2 - $1 }')
            "$QTRACE" info "$WORK/t.qtr" > "$WORK/info" 2> /dev/null
            verdict=good
            grep -q "^qtrace-boot: 4 cpus online, poweroff" \
                "$WORK/console" 2> /dev/null || verdict="no-poweroff"
            grep -q '^end: complete' "$WORK/info" ||
                verdict="$verdict,incomplete"
            grep -q '^lost: 0$' "$WORK/info" || verdict="$verdict,lost"
            grep -q "^streams: $streams\$" "$WORK/info" ||
                verdict="$verdict,streams"
            [ "$rc" -eq 0 ] || verdict="status-$rc"
            [ "$rc" -eq 137 ] && verdict="timeout-300s"
            echo "$v $m boot $i: status $rc, $secs s, $verdict" \
                "$(grep -m1 -E 'Assertion|qtrace' "$WORK/err" 2> /dev/null)"
            echo "$v $m $rc $secs $verdict" >> "$WORK/results"
            rm -f "$WORK/t.qtr" "$WORK/console"
        done
    done
done

echo
echo "| QEMU | mode | boots | good | other statuses | median s |"
echo "|---|---|---:|---:|---|---:|"
bad=0
for v in $(echo "$versions" | tr ',' ' '); do
    for m in $(echo "$modes" | tr ',' ' '); do
        awk -v v="$v" -v m="$m" '$1 == v && $2 == m' "$WORK/results" \
            > "$WORK/these"
        n=$(wc -l < "$WORK/these")
        good=$(awk '$5 == "good"' "$WORK/these" | wc -l)
        other=$(awk '$5 != "good" { print $5 }' "$WORK/these" | sort |
                uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }')
        median=$(awk '{ print $4 }' "$WORK/these" | sort -n |
                 awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
        echo "| $v | $m | $n | $good | ${other:--} | ${median:--} |"
        [ "$good" -eq "$n" ] || bad=1
    done
done
exit $bad
