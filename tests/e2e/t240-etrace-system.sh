#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# etrace=FILE in system mode, on Debian's qemu-system-x86_64 7.2 and on
# the QEMU 10.0 that scripts/fetch-qemu10.sh unpacks into $QEMU10_DIR: the
# pc machine's BIOS for half a second, then SIGTERM. The etrace file,
# read by the test peer, must start at the reset vector, hold one MEM
# record per mem_access record of the native trace written in the same
# run (with the physical address) and one EVENT_U64 per device access
# (flag gpio). A second run with gpio alone must show the BIOS setting up
# the local APIC (device apic-msi at 0xfee00000) as EVENT_U64 records.
# Usage: t240-etrace-system.sh [7.2|10.0].
PART=${1:-7.2}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/etrace-lib.sh"
TEST_NAME=t240-etrace-system-$PART

RESET_VECTOR=0xfffffff0

case $PART in
    7.2)
        QEMU_BIN=$(command -v qemu-system-x86_64) ||
            skip "qemu-system-x86_64 not installed (Debian package" \
                 "qemu-system-x86)"
        FW_ARGS=
        ;;
    10.0)
        QEMU_BIN="${QEMU10_DIR:+$QEMU10_DIR/root/usr/bin/qemu-system-x86_64}"
        if [ -z "$QEMU_BIN" ] || [ ! -x "$QEMU_BIN" ]; then
            why="no QEMU 10.0 in QEMU10_DIR='${QEMU10_DIR:-}' (run"
            why="$why scripts/fetch-qemu10.sh DIR, then QEMU10_DIR=DIR)"
            if [ "${CI:-}" = true ]; then
                fail "$why"
                finish
            fi
            skip "$why"
        fi
        FW_ARGS="-L $QEMU10_DIR/root/usr/share/qemu"
        FW_ARGS="$FW_ARGS -L $QEMU10_DIR/root/usr/share/seabios"
        ;;
    *)
        echo "usage: t240-etrace-system.sh [7.2|10.0]" >&2
        exit 2
        ;;
esac

# boot SECONDS PLUGIN_OPTIONS: the BIOS with the plugin, then SIGTERM.
boot() {
    # FW_ARGS is a word list: split on purpose.
    # shellcheck disable=SC2086
    timeout --preserve-status -k 30 "$1" "$QEMU_BIN" $FW_ARGS \
        -display none -nodefaults -machine pc -accel tcg -m 128 \
        -no-reboot -plugin "$QTRACE_PLUGIN,$2" > /dev/null 2> "$WORK/err"
}

T="$WORK/sys.qtr"
E="$WORK/sys.etr"
# ';' separates the flags inside -plugin, whose own separator is ','.
OPTS="out=$T,events=vcpu_*;exec_tb"
boot 0.5 "$OPTS,etrace=$E,etrace-flags=exec;mem;gpio;disas"
check_eq "QEMU exit status after SIGTERM" 0 "$?"
check_eq "qtrace lines on stderr" 0 "$(grep -c '^qtrace' "$WORK/err")"

peer decode "$E" > "$WORK/peer" 2> "$WORK/peer.err"
check_eq "the peer reads the file" 0 "$?"
sed 's/^/    /' "$WORK/peer.err"
check_grep "ARCH: x86_64 guest" "^ARCH guest=62/64/le " "$WORK/peer"
check_eq "first EXEC entry" "$RESET_VECTOR" \
    "$(awk '$1 == "E" { print $3; exit }' "$WORK/peer")"
check_eq "first TB record" "$RESET_VECTOR" \
    "$(awk '$1 == "T" { print $3; exit }' "$WORK/peer")"

# MEM and EVENT_U64 against the native trace of the same run.
"$QTRACE" dump -e mem_access "$T" > "$WORK/mem.dump"
check_eq "native trace reads" 0 "$?"
mem_fields < "$WORK/mem.dump" > "$WORK/mem.native"
awk '{ print $2, ($13 ~ /[13579bdf]$/ ? "w" : "r"), $7, $9, $11 }' \
    "$WORK/mem.native" > "$WORK/mem.want"
awk '$1 == "M" { print $3, $4, $5, $6, $8 }' "$WORK/peer" \
    > "$WORK/mem.got"
n=$(wc -l < "$WORK/mem.want")
if [ "$n" -gt 1000 ] && cmp -s "$WORK/mem.want" "$WORK/mem.got"; then
    pass "MEM records = native mem_access records ($n: time, r/w," \
         "vaddr, paddr, size)"
else
    fail "MEM records differ from the $n native mem_access records"
    diff "$WORK/mem.want" "$WORK/mem.got" | head -5 | sed 's/^/    /'
fi
# Values: QEMU 9.2+ (plugin API 4) gives them, 7.2 does not (then 0).
awk '{ print $17 }' "$WORK/mem.native" > "$WORK/val.want"
awk '$1 == "M" { print $7 }' "$WORK/peer" > "$WORK/val.got"
if cmp -s "$WORK/val.want" "$WORK/val.got"; then
    pass "MEM values = native mem_access values"
else
    fail "MEM values differ from the native ones"
fi
nonzero=$(grep -vc '^0x0$' "$WORK/val.got")
if [ "$PART" = 7.2 ]; then
    check_eq "MEM values without a value API" 0 "$nonzero"
elif [ "$nonzero" -gt 1000 ]; then
    pass "MEM values from QEMU: $nonzero non-zero"
else
    fail "MEM values from QEMU: only $nonzero non-zero"
fi
# Device accesses: flags bit 4 (0x10, I/O) and a device name ('NAME').
awk "$AWK_HEX"'
    { f = hex($13); d = $15; gsub("\047", "", d) }
    int(f / 16) % 2 == 1 && d != "" {
        print $2, d, (f % 2 ? "write" : "read"), $9 }' \
    "$WORK/mem.native" > "$WORK/dev.want"
awk '$1 == "V" { print $3, $4, $5, $6 }' "$WORK/peer" > "$WORK/dev.got"
if cmp -s "$WORK/dev.want" "$WORK/dev.got"; then
    pass "EVENT_U64 records = native device accesses" \
         "($(wc -l < "$WORK/dev.want"))"
else
    fail "EVENT_U64 records differ from the native device accesses"
    diff "$WORK/dev.want" "$WORK/dev.got" | head -5 | sed 's/^/    /'
fi
rm -f "$T" "$E" "$WORK/mem.native" "$WORK/mem.want" "$WORK/mem.got" \
    "$WORK/peer"

# Device events alone, for 2 s (half a second may end before the BIOS
# programs the local APIC on a loaded machine); a small file.
E="$WORK/gpio.etr"
boot 2 "etrace=$E,etrace-flags=gpio"
check_eq "gpio: QEMU exit status after SIGTERM" 0 "$?"
peer decode "$E" > "$WORK/gpio.peer"
check_eq "gpio: the peer reads the file" 0 "$?"
check_eq "gpio: records other than INFO, ARCH, EVENT_U64" 0 \
    "$(grep -cv '^[IAV]' "$WORK/gpio.peer")"
awk "$AWK_HEX"'
    $1 == "V" { n++ }
    $1 == "V" && $4 == "apic-msi" && ($5 == "read" || $5 == "write") &&
        hex($6) >= hex("0xfee00000") && hex($6) < hex("0xfee01000") {
        apic++
    }
    END { print n + 0, apic + 0 }' "$WORK/gpio.peer" > "$WORK/gpio.count"
read -r n apic < "$WORK/gpio.count"
if [ "$apic" -gt 0 ]; then
    pass "gpio: $apic of $n EVENT_U64 records are apic-msi reads and" \
         "writes in the local APIC page"
else
    fail "gpio: no apic-msi EVENT_U64 record ($n in all)"
fi
finish
