#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace coverage in system mode, where the trace maps no file, on QEMU
# 7.2 or 10.0:
# - boot-x86 (a -bios image copied from boot-x86.elf): without --elf,
#   drcov says to name the firmware and fails; with --elf boot-x86.elf
#   its module lines are the ELF's PT_LOADs (readelf) and its blocks
#   the distinct exec_tb blocks of the trace (qtrace dump); the text
#   form names _start, loop and reset and counts the distinct
#   instructions of the blocks that ran (1 + 4 + 5 + 4, boot-x86.S, the
#   hlt left out when QEMU 10.0 ends first); lcov refuses a file
#   without DWARF;
# - bare-x86_64 (built with -g): lcov from --elf bare-x86_64.elf gives
#   the lines of bare-x86_64.S: _start's first line once, leaf's ret 3
#   times (bare-x86_64.expect), and genhtml renders it.
# Usage: t1002-coverage-system.sh 7.2|10.0.
PART=${1:?usage: t1002-coverage-system.sh 7.2|10.0}
. "$(dirname "$0")/lib.sh"
TEST_NAME=t1002-coverage-system-$PART
. "$(dirname "$0")/boot-lib.sh"
use_boot_x86 "$PART"
ELF="$GUESTS/boot-x86.elf"
READ="$(dirname "$0")/drcov-read.py"
[ -f "$ELF" ] || skip "boot-x86.elf not built"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
command -v readelf > /dev/null 2>&1 || skip "readelf not installed"
T="$WORK/t.qtr"

run_boot_x86 "out=$T,events=vcpu_*;tb_trans;exec_tb"
check_eq "QEMU exit status" "$(expect_get exit)" "$rc"

"$QTRACE" coverage --format drcov -o "$WORK/no.drcov" "$T" 2> "$WORK/err"
check_eq "without --elf: status 1" 1 "$?"
check_eq "one line naming --elf" "1 1" \
    "$(wc -l < "$WORK/err") $(grep -c -- '--elf FILE' "$WORK/err")"
[ ! -e "$WORK/no.drcov" ] && pass "no output left" || fail "output left"

"$QTRACE" coverage --format drcov --elf "$ELF" -o "$WORK/t.drcov" "$T" \
    2> "$WORK/err"
check_eq "with --elf: status" "0 " "$? $(cat "$WORK/err")"
python3 "$READ" "$WORK/t.drcov" > "$WORK/read" 2> "$WORK/read.err"
check_eq "the reader takes it" "0 " "$? $(cat "$WORK/read.err")"
readelf -lW "$ELF" | awk '$1 == "LOAD" { print $3 }' |
    while read -r vaddr; do printf '%x\n' $((vaddr / 4096 * 4096)); done \
    > "$WORK/loads"
check_eq "module lines: the ELF's PT_LOADs" "$(cat "$WORK/loads")" \
    "$(awk '$1 == "module" { print $4 }' "$WORK/read")"
check_eq "one file" "$ELF" \
    "$(awk '$1 == "module" { print $8 }' "$WORK/read" | sort -u)"
"$QTRACE" dump -e tb_trans "$T" |
    awk '{ sub(/^0x/, "", $5); print $7, $5, $9 }' | sort -u > "$WORK/trans"
"$QTRACE" dump -e exec_tb "$T" | awk '{ print $7 }' | sort -u > "$WORK/ran"
awk 'NR == FNR { ran[$1] = 1; next } ($1 in ran) { print $2, $3 }' \
    "$WORK/ran" "$WORK/trans" | sort -u > "$WORK/want"
awk '$1 == "block" { print $2, $3 }' "$WORK/read" | sort -u > "$WORK/got"
n=$(wc -l < "$WORK/want")
[ "$n" -ge 4 ] && pass "$n distinct blocks ran" || fail "$n blocks ran"
check_eq "blocks: the trace's" "$(cat "$WORK/want")" "$(cat "$WORK/got")"

"$QTRACE" coverage --elf "$ELF" "$T" > "$WORK/text" 2> "$WORK/err"
check_eq "text: status" "0 " "$? $(cat "$WORK/err")"
# The instructions of the distinct blocks that ran, as tb_trans counts
# them (QEMU's count, not the walker's): 14, or 13 when QEMU 10.0 ends
# before it runs the hlt's own block.
"$QTRACE" dump -e tb_trans "$T" |
    awk '{ sub(/^0x/, "", $5); print $7, $5, $9, $11 }' | sort -u \
    > "$WORK/trans-n"
n_insns=$(awk 'NR == FNR { ran[$1] = 1; next }
    ($1 in ran) && !(($2 " " $3) in seen) { seen[$2 " " $3] = 1; n += $4 }
    END { print n + 0 }' "$WORK/ran" "$WORK/trans-n")
case $n_insns in
    13|14) pass "$n_insns distinct instructions ran (tb_trans)" ;;
    *) fail "$n_insns distinct instructions ran (tb_trans)" ;;
esac
check_grep "text: $n_insns distinct instructions" \
    "^coverage \\(x86_64, system mode, counts from exec_tb\\): [0-9]+ blocks, $n_insns instructions" \
    "$WORK/text"
for f in _start loop reset; do
    check_grep "text: a row for $f" " $f \\(boot-x86.elf\\)\$" "$WORK/text"
done

"$QTRACE" coverage --format lcov --elf "$ELF" -o "$WORK/b.info" "$T" \
    2> "$WORK/err"
check_eq "lcov without DWARF: status 1" 1 "$?"
check_grep "lcov without DWARF: said" 'no code ran in a file with a DWARF line table' \
    "$WORK/err"

# bare-x86_64, with DWARF lines (bare-lib.sh).
. "$(dirname "$0")/bare-lib.sh"
[ -f "$BARE_BIN" ] || { echo "(no bare-x86_64)"; finish; }
qemu=$(bare_qemus | awk -v p="$PART" '$1 == p { print $2, $3 }')
# shellcheck disable=SC2086
set -- $qemu
run_bare "$1" "$2" "out=$WORK/b.qtr,events=tb_trans;exec_tb"
check_eq "bare: QEMU exit status" "$(expect_get exit)" "$status"
"$QTRACE" coverage --format lcov --elf "$BARE_ELF" -o "$WORK/b.info" \
    "$WORK/b.qtr" 2> "$WORK/err"
check_eq "bare: lcov status" "0 " "$? $(cat "$WORK/err")"
SRC=$(cd "$(dirname "$0")/../guests" && pwd)/bare-x86_64.S
# line_count PATTERN: the DA count of the first line of bare-x86_64.S
# matching PATTERN.
line_count() {
    l=$(grep -n "$1" "$SRC" | head -1 | cut -d: -f1)
    awk -F'[:,]' -v l="$l" '/^SF:/ { f = $2 }
        /^DA:/ && f ~ /bare-x86_64\.S$/ && $2 == l { print $3 }' \
        "$WORK/b.info"
}
check_eq "bare: _start's cli ran once" 1 "$(line_count '^    cli')"
check_eq "bare: leaf's ret ran $(expect_get leaf_calls) times" \
    "$(expect_get leaf_calls)" "$(line_count '^leaf:' >/dev/null;
        l=$(grep -n '^leaf:' "$SRC" | cut -d: -f1); line_count_at=$((l + 1))
        awk -F'[:,]' -v l="$line_count_at" '/^SF:/ { f = $2 }
            /^DA:/ && f ~ /bare-x86_64\.S$/ && $2 == l { print $3 }' \
            "$WORK/b.info")"
if command -v genhtml > /dev/null 2>&1; then
    genhtml -q -o "$WORK/html" "$WORK/b.info" > "$WORK/genhtml.out" 2>&1
    check_eq "bare: genhtml renders it" "0 " \
        "$? $(cat "$WORK/genhtml.out")"
fi
finish
