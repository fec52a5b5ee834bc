#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace coverage --format drcov on guests of ARCH, read back by a drcov
# reader written from the format's facts (drcov-read.py: the header,
# module table version 4 in its Linux columns, binary and text block
# tables as Lighthouse and lightkeeper parse them):
# - asm-ARCH: its two PT_LOAD segments (readelf) as two lines of one
#   file, and exactly the blocks of asm-ARCH.expect, from exec_tb and
#   from tb_count alike, in the binary and in the text table;
# - calls-dyn-ARCH (dynamic, where built): a line per piece of every
#   file of the trace's image_map records, each file's pieces linked by
#   containing_id; the blocks are the distinct exec_tb blocks of the
#   trace (address and tb_trans size, from qtrace dump), each in the
#   file that maps it, and the program's main (nm) is a block start
#   relative to the program's base.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
command -v readelf > /dev/null 2>&1 || skip "readelf not installed"
READ="$(dirname "$0")/drcov-read.py"
cd "$WORK" || exit 1

"$QTRACE" record -q -e exec_tb,tb_trans,image_map -o t.qtr -- "$GUEST" \
    > /dev/null 2>&1
"$QTRACE" record -q -e tb_count,tb_trans,image_map -o c.qtr -- "$GUEST" \
    > /dev/null 2>&1

"$QTRACE" coverage --format drcov -o t.drcov t.qtr 2> err
check_eq "drcov from exec_tb: status" "0 " "$? $(cat err)"
python3 "$READ" t.drcov > t.read 2> read.err
check_eq "the reader takes it" "0 " "$? $(cat read.err)"
check_eq "binary block table" "table binary" "$(head -1 t.read)"

# The module lines: asm-ARCH's PT_LOAD segments (page-aligned), one
# file, the second line contained in the first.
readelf -lW "$GUEST" | awk '$1 == "LOAD" { print $2, $3 }' |
    while read -r off vaddr; do
        printf '%x %x\n' $((vaddr / 4096 * 4096)) $((off / 4096 * 4096))
    done > loads
awk '$1 == "module" { print $4, $7 }' t.read > segs
check_eq "segments are the PT_LOADs (start offset)" "$(cat loads)" \
    "$(cat segs)"
check_eq "module ids and containing ids" "module 0 0
module 1 0" "$(awk '$1 == "module" { print $1, $2, $3 }' t.read)"
check_eq "module path" "$GUEST" \
    "$(awk '$1 == "module" && $2 == 0 { print $8 }' t.read)"

# expect_blocks: the blocks of block_ranges as "ADDR SIZE ID" (id 0: the
# code segment).
expect_blocks() {
    expect_get block_ranges | tr ',' '\n' | while IFS=- read -r s rest; do
        e=${rest%%:*}
        printf '%x %d 0\n' $((s)) $((e - s))
    done | sort
}
expect_blocks > want
awk '$1 == "block" { print $2, $3, $4 }' t.read | sort > got
check_eq "blocks of asm-$ARCH.expect" "$(cat want)" "$(cat got)"

"$QTRACE" coverage --format drcov --drcov-text -o t.txt t.qtr
python3 "$READ" t.txt > t.txt.read 2> read.err
check_eq "text table read" "0 table text" "$? $(head -1 t.txt.read)"
check_eq "text and binary tables agree" "$(tail -n +2 t.read)" \
    "$(tail -n +2 t.txt.read)"
check_grep "text lines as drcov writes them" \
    '^module\[  0\]: 0x[0-9a-f]{8},  ?[0-9]+$' t.txt

"$QTRACE" coverage --format drcov -o c.drcov c.qtr
python3 "$READ" c.drcov > c.read 2> read.err
check_eq "from tb_count: the same log" "$(tail -n +2 t.read)" \
    "$(tail -n +2 c.read)"

# A dynamic program: its libraries are modules too.
DYN="$GUESTS/calls-dyn-$ARCH"
if [ ! -x "$DYN" ]; then
    echo "(no calls-dyn-$ARCH: the shared-library part is not run)"
    finish
fi
"$QTRACE" record -q -e exec_tb,tb_trans,image_map -o d.qtr -- "$DYN" \
    > /dev/null 2>&1
"$QTRACE" coverage --format drcov -o d.drcov d.qtr 2> err
st=$?
# A block in no file (QEMU's signal trampoline page) is left out, said.
out=$(sed -n 's/^qtrace coverage: d.qtr: \([0-9]*\) of [0-9]* blocks lie in no mapped file (left out)$/\1/p' err)
check_eq "dynamic: status, nothing said but blocks left out" "0 0" \
    "$st $(grep -vc 'in no mapped file' err)"
python3 "$READ" d.drcov > d.read 2> read.err
check_eq "dynamic: the reader takes it" "0 " "$? $(cat read.err)"

# Every file of an image_map record has lines, and only those.
"$QTRACE" dump -e image_map d.qtr | awk '{ print $NF }' | sort -u > maps
awk '$1 == "module" { print $8 }' d.read | sort -u > mods
check_eq "a module per mapped file" "$(cat maps)" "$(cat mods)"
n=$(wc -l < maps)
[ "$n" -ge 3 ] && pass "$n files (program, loader, libc...)" ||
    fail "only $n mapped files"
# Each file's lines: consecutive ids, the first its own container.
check_eq "segments of a file linked by containing_id" "" "$(awk '
    $1 == "module" {
        if ($8 != path) { path = $8; first = $2 }
        if ($3 != first) print "line " $2 " contained in " $3
    }' d.read)"

# The blocks: the distinct exec_tb blocks, at their tb_trans sizes.
"$QTRACE" dump -e tb_trans d.qtr |
    awk '{ sub(/^0x/, "", $5); print $7, $5, $9 }' | sort -u > trans
"$QTRACE" dump -e exec_tb d.qtr | awk '{ print $7 }' | sort -u > ran
awk 'NR == FNR { ran[$1] = 1; next } ($1 in ran) { print $2, $3 }' \
    ran trans | sort -u > want
awk '$1 == "block" { print $2, $3 }' d.read | sort -u > got
check_eq "blocks: the trace's executed blocks, but those left out" \
    "$(wc -l < want)" "$(($(wc -l < got) + ${out:-0}))"
check_eq "no block the trace did not run" "" \
    "$(diff want got | grep '^>' | head -5 | tr '\n' ' ')"

# main (nm) of the PIE program, relative to its base (offset 0 line).
main=$(nm "$DYN" | awk '$3 == "main" { print $1 }')
base=$(awk -v p="$DYN" '$1 == "module" && $8 == p && $2 == $3 {
    print $4 }' d.read)
# (An Arm symbol of Thumb code has bit 0 set; the block starts below.)
want_main=$(printf '%x' $(((0x$base + 0x$main) & ~1)))
check_grep "main is a block of the program" "^block $want_main " d.read
finish
