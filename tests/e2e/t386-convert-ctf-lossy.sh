#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A lossy recording (lossy=on, a FIFO drained slowly, as in t090) of the
# demo guest of ARCH converted to CTF: every lost record is an event of
# the CTF trace, and babeltrace2 reports the records it says were lost
# as discarded events of that stream ("Tracer discarded N events"), the
# same total as the lost records' counts. Skips when the run lost
# nothing (a machine fast enough to drain the FIFO).
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest demo "$ARCH"
command -v babeltrace2 > /dev/null 2>&1 ||
    skip "babeltrace2 not installed (Debian package babeltrace2)"

mkfifo "$WORK/fifo"
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
env -i "$QTRACE" record -e 'tb_trans,exec_tb,mem_access,func_*' \
    -O lossy=on -O chunk=64k -O buffer=128k -o "$WORK/fifo" -- "$GUEST" \
    > /dev/null 2>&1
wait "$drain"
n_lost=$(info_count "$WORK/lossy.qtr" lost)
[ "$n_lost" -gt 0 ] || skip "no record was lost in this run"
lost=$("$QTRACE" dump -e lost "$WORK/lossy.qtr" |
       awk '{ n += $5 } END { print n + 0 }')

"$QTRACE" convert --to ctf "$WORK/lossy.qtr" "$WORK/ctf" 2> "$WORK/err"
check_eq "convert status" 0 "$?"
babeltrace2 --clock-cycles "$WORK/ctf" > "$WORK/bt" 2> "$WORK/bt.err"
check_eq "babeltrace2 status" 0 "$?"
check_eq "every lost record an event" "$n_lost" \
    "$(grep -c ' lost: ' "$WORK/bt")"
check_eq "babeltrace2's discarded events: the records lost" "$lost" \
    "$(awk '/^WARNING: Tracer discarded [0-9]+ events? / { n += $4 }
        END { print n + 0 }' "$WORK/bt.err")"
check_eq "nothing but discarded-event warnings" "" \
    "$(grep -v '^WARNING: Tracer discarded' "$WORK/bt.err")"
finish
