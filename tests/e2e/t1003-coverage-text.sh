#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace coverage --format text on guests of ARCH:
# - asm-ARCH: the blocks, instructions and bytes of asm-ARCH.expect's
#   block_ranges, all in _start, executed as often as its blocks list;
# - calls-ARCH, recorded with exec_insn too: for main, fact and apply,
#   the instructions counted are the distinct exec_insn addresses in the
#   function (qtrace dump; QEMU's, not the walker's), SIZE is nm's and
#   BYTES stays within it.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
command -v nm > /dev/null 2>&1 || skip "nm not installed (binutils)"
cd "$WORK" || exit 1

"$QTRACE" record -q -e exec_tb,tb_trans,image_map -o t.qtr -- "$GUEST" \
    > /dev/null 2>&1
"$QTRACE" coverage t.qtr > text 2> err
check_eq "status" "0 " "$? $(cat err)"
ranges=$(expect_get block_ranges | tr ',' ' ')
insns=0 bytes=0
for r in $ranges; do
    s=${r%%-*} rest=${r#*-}
    insns=$((insns + ${rest#*:}))
    bytes=$((bytes + ${rest%%:*} - s))
done
execs=0
for b in $(expect_get blocks | tr ',' ' '); do
    execs=$((execs + ${b#*:}))
done
check_grep "summary: 3 blocks, $insns instructions, $bytes bytes" \
    "^coverage \\($ARCH, user mode, counts from exec_tb\\): 3 blocks, $insns instructions, $bytes bytes\$" text
check_eq "_start's row: blocks insns bytes execs" "3 $insns $bytes $execs" \
    "$(awk '$NF == "(asm-'"$ARCH"')" && $(NF - 1) == "_start" {
        print $1, $2, $3, $6 }' text)"
check_eq "the module's row" "3 $insns $bytes 1" \
    "$(awk '$NF == "asm-'"$ARCH"'" { print $1, $2, $3, $4 }' text)"

use_guest calls "$ARCH"
"$QTRACE" record -q -e exec_tb,exec_insn,tb_trans,image_map -o c.qtr -- \
    "$GUEST" > /dev/null 2>&1
"$QTRACE" coverage c.qtr > ctext 2> err
check_eq "calls: status" "0 " "$? $(cat err)"
"$QTRACE" dump -e exec_insn c.qtr | awk '{ print $5 }' | sort -u > pcs
nm -S "$GUEST" > nm
for f in main fact apply; do
    set -- $(awk -v f="$f" '$4 == f { print $1, $2 }' nm)
    start=$((0x$1 & ~1)) size=$((0x$2))
    want=$(while read -r pc; do
        [ $((pc)) -ge $start ] && [ $((pc)) -lt $((start + size)) ] &&
            echo "$pc"
    done < pcs | wc -l)
    row=$(awk -v f="$f" '$(NF - 1) == f { print $2, $3, $4 }' ctext)
    # shellcheck disable=SC2086
    set -- $row
    check_eq "$f: distinct instructions run (exec_insn)" "$want" "$1"
    check_eq "$f: size (nm)" "$size" "$3"
    [ "$2" -gt 0 ] && [ "$2" -le "$size" ] &&
        pass "$f: $2 bytes of $size ran" || fail "$f: bytes $2 of $size"
done
finish
