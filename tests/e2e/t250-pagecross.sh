#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Blocks at a page boundary on ARCH (pagecross-ARCH.S): every tb_trans
# record has the size, instruction count and code bytes that executed.
# Sizes and counts are checked against the guest's construction
# (pagecross-ARCH.expect) and against objdump's instruction boundaries;
# the code bytes, carried by the etrace TB records of the same run,
# against the ELF file's bytes, read by the test peer (etrace-peer.py).
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/etrace-lib.sh"
use_guest pagecross "$ARCH"

case $ARCH in
    arm) OBJDUMP=arm-linux-gnueabihf-objdump ;;
    *) OBJDUMP=$ARCH-linux-gnu-objdump ;;
esac
command -v "$OBJDUMP" > /dev/null 2>&1 ||
    { [ "$(uname -m)" = "$ARCH" ] && OBJDUMP=objdump; }
command -v "$OBJDUMP" > /dev/null 2>&1 ||
    skip "no objdump for $ARCH (Debian package binutils-$ARCH-linux-gnu)"

"$QTRACE" record -e tb_trans -o "$WORK/t.qtr" -O "etrace=$WORK/t.etr" \
    -O etrace-flags=disas -- "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "guest exit status" "$(expect_get exit)" "$?"
"$QTRACE" dump "$WORK/t.qtr" |
    awk '$3 == "tb_trans" { print $5, $9, $11 }' | sort -u > "$WORK/tbs"

# 1. The blocks the guest is built to make.
for b in $(expect_get blocks | tr ',' ' '); do
    pc=${b%%:*}
    want=$(echo "$b" | cut -d: -f2-3 | tr ':' ' ')
    got=$(awk -v pc="$pc" '$1 == pc { print $2, $3 }' "$WORK/tbs")
    check_eq "block $pc: bytes and instructions" "$want" "$got"
done

# 2. Every block ends where an instruction ends and holds as many
# instructions as objdump finds in it.
# objdump's lines "ADDR:<tab>BYTES<tab>TEXT": each starts an instruction,
# and the last one's end is the end of the code.
"$OBJDUMP" -d "$GUEST" | awk -F '\t' "$AWK_HEX"'
    /^ *[0-9a-f]+:\t/ {
        a = $1; sub(/:.*/, "", a); gsub(/ /, "", a)
        b = $2; gsub(/ /, "", b)
        print hex(a); print hex(a) + length(b) / 2
    }' | sort -un > "$WORK/bounds"
bad=$(awk "$AWK_HEX"'
    NR == FNR { at[$1] = 1; next }
    {
        s = hex($1); e = s + $2; n = 0
        for (a = s; a < e; a++) if (a in at) n++
        if (!(e in at)) print $1 " ends inside an instruction"
        else if (n != $3) print $1 " has " n " instructions, not " $3
    }' "$WORK/bounds" "$WORK/tbs")
check_eq "blocks that end inside an instruction or miscount" "" "$bad"

# 3. Code bytes: the etrace TB records, as the peer reads them, are the
# ELF's bytes and the tb_trans extents.
peer decode "$WORK/t.etr" --elf "$GUEST" > "$WORK/peer" 2> "$WORK/peer.err"
check_eq "the peer reads the trace, TB code = ELF bytes" 0 "$?"
sed 's/^/    /' "$WORK/peer.err"
awk "$AWK_HEX"'$1 == "T" { printf "0x%x %d\n", hex($3), $5 }' "$WORK/peer" |
    sort -u > "$WORK/tb.got"
awk "$AWK_HEX"'{ printf "0x%x %d\n", hex($1), $2 }' "$WORK/tbs" |
    sort -u > "$WORK/tb.want"
if cmp -s "$WORK/tb.want" "$WORK/tb.got"; then
    pass "TB records = tb_trans extents ($(wc -l < "$WORK/tb.want"))"
else
    fail "TB records differ from tb_trans extents:"
    diff "$WORK/tb.want" "$WORK/tb.got" | head -8 | sed 's/^/    /'
fi
finish
