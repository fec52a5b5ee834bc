#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# System mode packs blocks and memory accesses: the pc machine's BIOS
# traced with exec_tb and mem_access twice, encoding=packed and
# encoding=raw, under -icount (QEMU then runs the same instructions every
# time). The packed file must be far smaller per record (both
# uncompressed), its dump must read the same records as the raw one
# (the first 200000 lines of vCPU records, before the two runs'
# different stop times matter, and the first 1000 translations apart:
# where the writer flushes them depends on timing), with physical
# addresses, and its index must match its chunks. Usage:
# t610-system-packed.sh 7.2|10.0
PART=$1
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
TEST_NAME=t610-system-packed-$PART
HERE=$(dirname "$0")

RUN_SECONDS=2
LINES=200000
EVENTS='vcpu_*;tb_trans;exec_tb;mem_access'

case $PART in
    7.2)
        QEMU_BIN=$(command -v qemu-system-x86_64) ||
            skip "qemu-system-x86_64 not installed (Debian package" \
                 "qemu-system-x86)"
        set --
        ;;
    10.0)
        QEMU_BIN=${QEMU10_DIR:+$QEMU10_DIR/root/usr/bin/qemu-system-x86_64}
        [ -n "$QEMU_BIN" ] && [ -x "$QEMU_BIN" ] ||
            skip "no QEMU 10.0 in QEMU10_DIR (scripts/fetch-qemu10.sh)"
        set -- -L "$QEMU10_DIR/root/usr/share/qemu" \
            -L "$QEMU10_DIR/root/usr/share/seabios"
        ;;
    *) echo "usage: t610-system-packed.sh 7.2|10.0" >&2; exit 2 ;;
esac
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"

# boot ENCODING: the BIOS for RUN_SECONDS, then SIGTERM (a clean exit).
boot() {
    timeout -s TERM "$RUN_SECONDS" "$QEMU_BIN" "$@" -display none \
        -nodefaults -machine pc -accel tcg -icount shift=0,sleep=off \
        -rtc base=2020-01-01T00:00:00,clock=vm \
        -m 128 -no-reboot -plugin "$QTRACE_PLUGIN,out=$WORK/$ENC.qtr,encoding=$ENC,compress=off,events=$EVENTS" \
        > /dev/null 2> "$WORK/$ENC.err"
}

for ENC in packed raw; do
    boot "$@"
    "$QTRACE" info "$WORK/$ENC.qtr" > "$WORK/$ENC.info" 2>&1
    check_grep "$ENC: trace complete" '^end: complete' "$WORK/$ENC.info"
    # Translations go out when the writer flushes: their place among the
    # vCPU's records depends on timing, their own order does not.
    "$QTRACE" dump -e -tb_trans "$WORK/$ENC.qtr" 2> /dev/null |
        head -n "$LINES" > "$WORK/$ENC.dump"
    "$QTRACE" dump -e tb_trans "$WORK/$ENC.qtr" 2> /dev/null |
        head -n 1000 > "$WORK/$ENC.trans"
done

# Bytes per record: each run lasts RUN_SECONDS of the host's time, so
# the two traces hold different numbers of records.
per_record() {
    awk '/^data_bytes:/ { b = $2 } /^records:/ { r = $2 }
         END { if (r > 0) printf "%d", b * 1000 / r }' "$WORK/$1.info"
}
packed=$(per_record packed)
raw=$(per_record raw)
echo "    packed $packed, raw $raw bytes per 1000 records"
if [ "${packed:-0}" -gt 0 ] && [ $((packed * 5)) -lt "${raw:-0}" ]; then
    pass "packed under a fifth of raw per record (uncompressed)"
else
    fail "packed ${packed:-?} bytes per 1000 records against ${raw:-?} raw"
fi
check_eq "dump lines read" "$LINES" "$(wc -l < "$WORK/packed.dump")"
for part in dump trans; do
    if cmp -s "$WORK/packed.$part" "$WORK/raw.$part"; then
        pass "packed and raw: the same $part lines"
    else
        fail "packed and raw $part lines differ:"
        diff "$WORK/raw.$part" "$WORK/packed.$part" | head -4 |
            sed 's/^/    /'
    fi
done
check_eq "translations read" 1000 "$(wc -l < "$WORK/packed.trans")"
mem=$(awk '$3 == "mem_access" { n++ } END { print n + 0 }' "$WORK/packed.dump")
# dump shows paddr only where its flag (0x8) says it is valid.
phys=$(awk '$3 == "mem_access" && / paddr 0x[0-9a-f]+ / { n++ }
            END { print n + 0 }' "$WORK/packed.dump")
if [ "$mem" -gt 1000 ] && [ "$phys" -eq "$mem" ]; then
    pass "$mem accesses, all with their physical address"
else
    fail "$mem accesses, $phys with a physical address"
fi
python3 "$HERE/index-check.py" "$WORK/packed.qtr" > "$WORK/check" 2>&1
check_grep "the index matches the chunks" '^ok [0-9]+$' "$WORK/check"
finish
