#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# lossy=on with a sink that cannot keep up (a FIFO drained slowly): the
# guest of ARCH runs to its normal end, whole chunks are dropped and
# counted (lost records in the stream, lost= in the END chunk, record's
# status 1 and the count in its message), the trace
# still expands cleanly, and every record it keeps (blocks, accesses,
# function entries and exits) is one the lossless recording of the same
# run has, at the same time.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest demo "$ARCH"
EVENTS='tb_trans,exec_tb,mem_access,func_*'

env -i "$QTRACE" record -e "$EVENTS" -o "$WORK/full.qtr" -- "$GUEST" \
    > /dev/null 2>&1
check_eq "lossless run status" 0 "$?"

mkfifo "$WORK/fifo"
# Drain 64 KiB every 50 ms: far slower than the guest writes.
: > "$WORK/lossy.qtr"
(
    exec < "$WORK/fifo"
    while :; do
        dd bs=65536 count=1 iflag=fullblock status=none > "$WORK/piece"
        [ -s "$WORK/piece" ] || break
        cat "$WORK/piece" >> "$WORK/lossy.qtr"
        sleep 0.05
    done
) &
drain=$!
env -i "$QTRACE" record -e "$EVENTS" -O lossy=on -O chunk=64k \
    -O buffer=128k -o "$WORK/fifo" -- "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "lossy run status (records were lost)" 1 "$?"
wait "$drain"

"$QTRACE" info "$WORK/lossy.qtr" > "$WORK/info"
check_grep "trace complete" '^end: *complete' "$WORK/info"
lost=$(sed -n 's/^lost: *//p' "$WORK/info")
[ "${lost:-0}" -gt 0 ] && pass "END counts $lost lost records" ||
    fail "no records lost (lost: ${lost:-none}): the sink kept up"
check_eq "record says how many were lost" \
    "qtrace record: $WORK/fifo: $lost records lost" \
    "$(grep 'records lost' "$WORK/err")"
check_grep "lost records in the stream" '^  lost +[1-9]' "$WORK/info"

DUMP_EV='exec_tb,mem_access,func_*'
"$QTRACE" dump -e "$DUMP_EV" "$WORK/lossy.qtr" > "$WORK/lossy.txt"
check_eq "lossy dump status" 0 "$?"
"$QTRACE" dump -e "$DUMP_EV" "$WORK/full.qtr" > "$WORK/full.txt"
check_grep "function records kept" ' func_exit ' "$WORK/lossy.txt"
sort "$WORK/lossy.txt" > "$WORK/lossy.sorted"
sort "$WORK/full.txt" > "$WORK/full.sorted"
check_eq "records kept that the lossless run lacks" 0 \
    "$(comm -23 "$WORK/lossy.sorted" "$WORK/full.sorted" | wc -l)"
kept=$(wc -l < "$WORK/lossy.txt")
[ "$kept" -gt 0 ] && [ "$kept" -lt "$(wc -l < "$WORK/full.txt")" ] &&
    pass "kept $kept of $(wc -l < "$WORK/full.txt") records" ||
    fail "kept $kept records"
finish
