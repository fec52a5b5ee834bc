#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The example instrumentation libraries on the assembly guest of ARCH,
# loaded by qtrace record --instr: executed blocks per start address,
# instructions (block-wise and per instruction), stores per size and
# loads must equal the guest's construction (tests/guests/asm-ARCH.expect).
# Two libraries at once, each with its own --instr-arg: an argument given
# to the wrong library makes that library refuse to start.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
COUNTER="$INSTR_EXAMPLES/libqtrace-instr-counter.so"
STORES="$INSTR_EXAMPLES/libqtrace-instr-stores.so"

"$QTRACE" record -q -o "$WORK/t.qtr" \
    --instr "$COUNTER" --instr-arg "out=$WORK/blocks" \
    --instr "$STORES" --instr-arg loads --instr-arg "out=$WORK/stores" \
    -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "exit status passed through" "$(expect_get exit)" "$?"

value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# blocks=ADDR:COUNT,...: each start address, and their sum.
total=0
for spec in $(expect_get blocks | tr ',' ' '); do
    addr=${spec%%:*}; count=${spec#*:}
    total=$((total + count))
    got=$(awk -v a="$addr" '$1 == "block" && $2 == a { print $3 }' \
          "$WORK/blocks")
    check_eq "executions of the block at $addr" "$count" "${got:-0}"
done
check_eq "blocks executed" "$total" "$(value blocks "$WORK/blocks")"
check_eq "distinct blocks" "$(expect_get blocks | tr ',' '\n' | wc -l)" \
    "$(grep -c '^block ' "$WORK/blocks")"
check_eq "instructions (block sizes)" "$(expect_get insns)" \
    "$(value insns "$WORK/blocks")"

check_eq "stores" "$(expect_get stores)" "$(value stores "$WORK/stores")"
check_eq "loads" "$(expect_get loads)" "$(value loads "$WORK/stores")"
# store_addrs=ADDR:SIZE:COUNT,...: the counts per size.
for size in 1 2 4 8; do
    want=$(expect_get store_addrs | tr ',' '\n' |
           awk -F: -v s="$size" '$2 == s { n += $3 } END { print n + 0 }')
    got=$(awk -v s="$size" '$1 == "store" && $2 == s { print $3 }' \
          "$WORK/stores")
    check_eq "stores of $size bytes" "$want" "${got:-0}"
done

# One callback per instruction counts the same instructions.
"$QTRACE" record -q -o "$WORK/t.qtr" \
    --instr "$COUNTER" --instr-arg per-insn --instr-arg "out=$WORK/insns" \
    -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "per-insn run exit status" "$(expect_get exit)" "$?"
check_eq "instructions (per-insn callbacks)" "$(expect_get insns)" \
    "$(value insns "$WORK/insns")"

# "loads" belongs to the stores library: after the counter it is refused.
"$QTRACE" record -q -o "$WORK/t.qtr" \
    --instr "$STORES" --instr "$COUNTER" --instr-arg loads \
    -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
rc=$?
[ "$rc" -ne "$(expect_get exit)" ] && [ "$rc" -ne 0 ]
check_eq "an argument binds to the library before it (refused)" 0 "$?"
check_grep "the counter names the argument" \
    "instr=$COUNTER: .*unknown argument loads" "$WORK/err"
finish
