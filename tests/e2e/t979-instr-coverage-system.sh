#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The coverage example in system mode, from the same .so, on QEMU 7.2
# and 10.0: the bare-metal x86 guest (tests/guests/bare-x86_64.S) with
# elf= naming its ELF file. Its code runs straight from _start to the
# out instruction that ends QEMU (every jump goes to the next function
# or back in a loop), so the source lines hit are exactly the lines
# holding an instruction from _start: to that out, read from the .S
# here. The hlt after it is left out of the comparison: the example
# counts a block whole, and QEMU's block holding the out may or may not
# run on to the hlt (seen both ways on 10.0). The loops' lines run as
# often as the guest's construction says; genhtml accepts the tracefile.
# The reset vector runs at 0xfffffff0, the top-of-memory alias of its
# 0xffff0 in the ELF file: per address it is there once, in the lines it
# is not.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bare-lib.sh"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
[ -f "$BARE_BIN" ] || skip "guest bare-x86_64 not built (no x86_64 compiler)"
COVERAGE="$INSTR_EXAMPLES/libqtrace-instr-coverage.so"
SRC=$(cd "$(dirname "$0")/../guests" && pwd)/bare-x86_64.S

# The lines of the .S with an instruction, from _start: to the out:
# comments, labels and directives removed, something must be left.
awk '/^_start:/ { on = 1; next }
    on {
        t = $0; sub(/\/\*.*/, "", t)
        sub(/^[ \t]*([0-9]+|[A-Za-z_.0-9]+):/, "", t)
        if (t ~ /^[ \t]*[a-z]/) print NR
        if (t ~ /^[ \t]*out[ \t]/) exit
    }' "$SRC" > "$WORK/expected.lines"
HLT=$(awk 'f && /hlt/ { print NR; exit } /^[ \t]*out[ \t]/ { f = 1 }' "$SRC")
# line_of TEXT: the line of the .S holding TEXT (a comment).
line_of() { grep -nF "$1" "$SRC" | head -1 | cut -d: -f1; }

ran=0
bare_qemus > "$WORK/qemus"
while read -r label qemu fw; do
    ran=1
    run_bare "$qemu" "$fw" "out=$WORK/t.qtr,instr=$COVERAGE,instr-arg=elf=$BARE_ELF,instr-arg=lcov=$WORK/$label.info,instr-arg=out=$WORK/$label.cov"
    check_eq "$label: QEMU's exit status (the guest's)" \
        "$(expect_get exit)" "$status"
    awk -F'[:,]' -v hlt="$HLT" '/^DA:/ && $3 > 0 && $2 != hlt { print $2 }' \
        "$WORK/$label.info" > "$WORK/$label.lines"
    check_eq "$label: number of lines hit" \
        "$(wc -l < "$WORK/expected.lines")" "$(wc -l < "$WORK/$label.lines")"
    check_eq "$label: lines hit" "" \
        "$(diff "$WORK/expected.lines" "$WORK/$label.lines" |
           grep '^[<>]' | tr '\n' ' ')"
    # DA:LINE,COUNT of the loads and stores, by their comments.
    for spec in "load 4 bytes, one per line:2048" "store 4 bytes:1024" \
                "I/O APIC index register:1"; do
        check_eq "$label: runs of '${spec%:*}'" "${spec##*:}" \
            "$(sed -n "s/^DA:$(line_of "${spec%:*}"),//p" "$WORK/$label.info")"
    done
    check_grep "$label: the reset vector, at its alias" '^insn 0xfffffff0 1$' \
        "$WORK/$label.cov"
    genhtml -q -o "$WORK/html-$label" "$WORK/$label.info" \
        > "$WORK/genhtml.out" 2>&1
    check_eq "$label: genhtml accepts the tracefile" 0 "$?"
done < "$WORK/qemus"
[ "$ran" -eq 1 ] || skip "no qemu-system-x86_64"
finish
