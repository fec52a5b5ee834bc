#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The cache simulator example in system mode, from the same .so, on QEMU
# 7.2 and 10.0: the bare-metal x86 guest (tests/guests/bare-x86_64.S),
# its access patterns only (range= from thrash to calls, by nm). The
# references, misses per geometry and device accesses must be the
# guest's construction (bare-x86_64.expect): the I/O APIC register read
# is a device access (is_io) named "ioapic", and is kept out of the cache.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bare-lib.sh"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
[ -f "$BARE_BIN" ] || skip "guest bare-x86_64 not built (no x86_64 compiler)"
command -v nm > /dev/null 2>&1 || skip "nm not installed (binutils)"
CACHESIM="$INSTR_EXAMPLES/libqtrace-instr-cachesim.so"
RANGE="$(bare_sym thrash)-$(bare_sym calls)"

refs=0
for f in thrash cold_read warm_read cold_write; do
    set -- $(expect_get "$f")
    refs=$((refs + $1 + $2))
done
ran=0
bare_qemus > "$WORK/qemus"
while read -r label qemu fw; do
    ran=1
    for geometry in 32K,8,64 64K,16,64; do
        size=${geometry%%,*}; rest=${geometry#*,}
        assoc=${rest%%,*}; line=${rest#*,}
        out="$WORK/cache-$label-$size"
        run_bare "$qemu" "$fw" "out=$WORK/t.qtr,instr=$CACHESIM,instr-arg=range=$RANGE,instr-arg=size=$size,instr-arg=assoc=$assoc,instr-arg=line=$line,instr-arg=out=$out"
        check_eq "$label $geometry: QEMU's exit status (the guest's)" \
            "$(expect_get exit)" "$status"
        misses=0
        for m in $(expect_get "misses_$geometry"); do
            misses=$((misses + m))
        done
        check_eq "$label $geometry: references" "$refs" \
            "$(awk '$1 == "total" { print $3 }' "$out")"
        check_eq "$label $geometry: misses" "$misses" \
            "$(awk '$1 == "total" { print $9 }' "$out")"
        check_eq "$label $geometry: device accesses" \
            "$(expect_get device_loads)" \
            "$(awk '$1 == "io" { print $2 }' "$out")"
        check_eq "$label $geometry: the named device" \
            "$(expect_get device) 1" \
            "$(awk -v d="$(expect_get device)" \
               '$1 == "device" && $2 == d { print $2, $3 }' "$out")"
    done
done < "$WORK/qemus"
[ "$ran" -eq 1 ] || skip "no qemu-system-x86_64"
finish
