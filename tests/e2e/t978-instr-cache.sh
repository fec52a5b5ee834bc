#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The cache simulator example (libqtrace-instr-cachesim.so) on the cache
# guest of ARCH (tests/guests/cache-ARCH.S), in four cache geometries:
# each function's loads, stores and misses must be those the guest's
# access patterns imply (cache-ARCH.expect), and the total the sum. A
# geometry whose number of sets is no power of two is refused.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest cache "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
CACHESIM="$INSTR_EXAMPLES/libqtrace-instr-cachesim.so"

# field FILE WHAT KEY: the value after KEY on the line "function WHAT" or
# "total" (WHAT = total).
field() {
    awk -v w="$2" -v k="$3" '($1 == "function" && $2 == w) ||
        ($1 == w && w == "total") {
        for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}

for geometry in 32K,8,64 64K,16,64 8K,1,64 16K,4,32; do
    size=${geometry%%,*}; rest=${geometry#*,}
    assoc=${rest%%,*}; line=${rest#*,}
    out="$WORK/cache-$size-$assoc-$line"
    "$QTRACE" record -q -o "$WORK/t.qtr" --instr "$CACHESIM" \
        --instr-arg "size=$size" --instr-arg "assoc=$assoc" \
        --instr-arg "line=$line" --instr-arg "out=$out" \
        -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
    check_eq "$geometry: guest exit status" 0 "$?"
    set -- $(expect_get "misses_$geometry")
    total_misses=0 total_refs=0
    for f in thrash cold_read warm_read cold_write; do
        want=$(expect_get "$f")
        loads=${want% *} stores=${want#* }
        check_eq "$geometry: $f references" "$((loads + stores))" \
            "$(field "$out" "$f" refs)"
        check_eq "$geometry: $f misses" "$1" "$(field "$out" "$f" misses)"
        if [ "$loads" -gt 0 ]; then
            check_eq "$geometry: $f read misses" "$1" \
                "$(field "$out" "$f" read_misses)"
        else
            check_eq "$geometry: $f write misses" "$1" \
                "$(field "$out" "$f" write_misses)"
        fi
        total_misses=$((total_misses + $1))
        total_refs=$((total_refs + loads + stores))
        shift
    done
    check_eq "$geometry: total references" "$total_refs" \
        "$(field "$out" total refs)"
    check_eq "$geometry: total misses" "$total_misses" \
        "$(field "$out" total misses)"
done

# 48 KiB in 8 ways of 64 bytes: 96 sets.
"$QTRACE" record -q -o "$WORK/t.qtr" --instr "$CACHESIM" \
    --instr-arg size=48K -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
[ $? -ne 0 ]
check_eq "size=48K refused" 0 "$?"
check_grep "the refusal names the geometry" \
    'size=49152 assoc=8 line=64: .*powers of two' "$WORK/err"
finish
