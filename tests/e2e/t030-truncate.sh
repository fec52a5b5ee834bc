#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace of ARCH's demo guest cut at pseudo-random offsets reads cleanly
# up to the cut: dump prints a prefix of the full dump (never garbage),
# the prefix never shrinks as the cut moves later, and a cut inside a
# chunk is reported with the chunk's number and offset.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest demo "$ARCH"

T="$WORK/t.qtr"
# Small chunks give many cut points between and inside chunks.
"$QTRACE" record -e 'vcpu_*,tb_trans,exec_tb,mem_access' -O chunk=64k \
    -o "$T" -- "$GUEST" > /dev/null 2>&1
check_eq "guest exit status" 0 "$?"
"$QTRACE" dump "$T" > "$WORK/full" 2> "$WORK/full.err"
check_eq "full trace dump status" 0 "$?"
size=$(wc -c < "$T")
full_lines=$(wc -l < "$WORK/full")

prev=0
bad_prefix=0
bad_status=0
shrunk=0
unnamed=0
cuts=$(awk -v s="$size" 'BEGIN { srand(7); for (i = 0; i < 40; i++)
                                  print int(rand() * s) }' | sort -n)
for cut in 0 1 15 16 17 47 48 $cuts $((size - 1)); do
    head -c "$cut" "$T" > "$WORK/cut.qtr"
    "$QTRACE" dump "$WORK/cut.qtr" > "$WORK/cut" 2> "$WORK/cut.err"
    st=$?
    # 3: cut between two chunks, so no END chunk (docs/cli.md).
    if [ "$st" -ne 3 ] && [ "$st" -ne 1 ]; then
        bad_status=$((bad_status + 1))
        echo "cut $cut: status $st"
    fi
    n=$(wc -l < "$WORK/cut")
    if ! head -n "$n" "$WORK/full" | cmp -s - "$WORK/cut"; then
        bad_prefix=$((bad_prefix + 1))
        echo "cut $cut: output is not a prefix of the full dump"
    fi
    [ "$n" -ge "$prev" ] || shrunk=$((shrunk + 1))
    prev=$n
    if [ "$st" -eq 1 ] && [ "$cut" -gt 64 ] &&
       ! grep -Eq 'chunk [0-9]+ at offset 0x[0-9a-f]+' "$WORK/cut.err"; then
        unnamed=$((unnamed + 1))
        echo "cut $cut: error does not name the chunk: $(cat "$WORK/cut.err")"
    fi
done
check_eq "cuts whose dump is not a prefix" 0 "$bad_prefix"
check_eq "cuts with a status other than 1 or 3" 0 "$bad_status"
check_eq "cuts that read fewer records than an earlier cut" 0 "$shrunk"
check_eq "cut errors without chunk and offset" 0 "$unnamed"
# The last cut falls inside the END chunk: every record is still there.
check_eq "records read from a trace missing its last byte" "$full_lines" "$prev"
finish
