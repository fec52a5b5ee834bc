#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Counting mode on the assembly guest of ARCH: events=tb_count gives one
# tb_count record per executed block with its execution count (inline
# counters, no callback), equal to the counts known by construction.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"

T="$WORK/t.qtr"
"$QTRACE" record -e 'tb_count,tb_trans' -o "$T" -- "$GUEST" > /dev/null 2>&1
check_eq "exit status" "$(expect_get exit)" "$?"
"$QTRACE" dump "$T" > "$WORK/dump"
check_eq "dump status" 0 "$?"
check_eq "no exec_tb records" 0 "$(grep -c ' exec_tb ' "$WORK/dump")"
for spec in $(expect_get blocks | tr ',' ' '); do
    addr=${spec%%:*}; count=${spec#*:}
    got=$(awk -v a="$addr" '$3 == "tb_trans" && $5 == a { tb[$7] = 1 }
                            $3 == "tb_count" && ($5 in tb) { n += $7 }
                            END { print n + 0 }' "$WORK/dump")
    check_eq "count of the block at $addr" "$count" "$got"
done
finish
