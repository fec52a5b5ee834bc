#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The coverage example's per-address output on the assembly guest of
# ARCH (tests/guests/asm-ARCH.S): every executed instruction once, in
# the blocks of asm-ARCH.expect, their executions adding up to the
# guest's instruction count, all in _start (by the guest's symbols);
# and an lcov tracefile of asm-ARCH.S from its DWARF lines that genhtml
# accepts, with the loop's lines run loop_count times.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
COVERAGE="$INSTR_EXAMPLES/libqtrace-instr-coverage.so"

"$QTRACE" record -q -o "$WORK/t.qtr" --instr "$COVERAGE" \
    --instr-arg "out=$WORK/cov" --instr-arg "lcov=$WORK/cov.info" \
    -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "exit status passed through" "$(expect_get exit)" "$?"

# block_ranges=START-END:INSNS,...: instructions per block.
insns=0
for spec in $(expect_get block_ranges | tr ',' ' '); do
    insns=$((insns + ${spec#*:}))
done
check_eq "distinct instructions executed" "$insns" \
    "$(grep -c '^insn ' "$WORK/cov")"
check_eq "executions of all instructions" "$(expect_get insns)" \
    "$(awk '$1 == "insn" { n += $3 } END { print n + 0 }' "$WORK/cov")"
outside=$(awk -v r="$(expect_get block_ranges)" '
    function hex(s,   v, i) {
        s = tolower(s); sub(/^0x/, "", s); v = 0
        for (i = 1; i <= length(s); i++)
            v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
        return v
    }
    BEGIN { n = split(r, b, ",")
        for (i = 1; i <= n; i++) {
            split(b[i], p, "[-:]"); lo[i] = hex(p[1]); hi[i] = hex(p[2])
        } }
    $1 == "insn" { a = hex($2); ok = 0
        for (i = 1; i <= n; i++) if (a >= lo[i] && a < hi[i]) ok = 1
        if (!ok) print $2 }' "$WORK/cov")
check_eq "instructions outside the guest's blocks" "" "$outside"
check_eq "per function" "func _start insns $insns execs 1" \
    "$(grep '^func ' "$WORK/cov")"

loop=$(expect_get loop_count)
check_grep "lcov: the loop's lines run $loop times" "^DA:[0-9]+,$loop\$" \
    "$WORK/cov.info"
check_grep "lcov: the guest's source" '^SF:/.*/asm-'"$ARCH"'\.S$' \
    "$WORK/cov.info"
if command -v genhtml > /dev/null 2>&1; then
    genhtml -q -o "$WORK/html" "$WORK/cov.info" > "$WORK/genhtml.out" 2>&1
    check_eq "genhtml accepts the tracefile" 0 "$?"
else
    echo "SKIP genhtml: not installed (Debian package lcov)"
fi
finish
