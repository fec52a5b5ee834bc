#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# start-at=N stop-after=M on the busy guest of ARCH (one thread, the
# same instructions every run): the window's blocks, instructions and
# accesses are those of a full trace of the same run from the block
# holding instruction N to the last block starting before N' + M (N' the
# window's first block). N lies far beyond the first translations, so
# the window opens from count-only translation; the window's edges are
# trace_switch records at those times. The same through qtrace record's
# --start-at/--stop-after, and with no start-at (stop-after alone).
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/window-lib.sh"
use_guest busy "$ARCH"

N=300000
M=50000
EV='exec_tb;exec_insn;mem_access;tb_trans;vcpu_init'
"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/full.qtr,events=$EV" \
    "$GUEST" 100 > /dev/null 2> "$WORK/err"
check_eq "full run status" 0 "$?"
"qemu-$ARCH" -plugin \
    "$QTRACE_PLUGIN,out=$WORK/w.qtr,events=$EV,start-at=$N,stop-after=$M" \
    "$GUEST" 100 > /dev/null 2> "$WORK/err"
check_eq "window run status" 0 "$?"
"$QTRACE" dump "$WORK/full.qtr" > "$WORK/full"
"$QTRACE" dump "$WORK/w.qtr" > "$WORK/w"

open=$(window_block_at "$WORK/full" 0 $N)
close=$(window_block_from "$WORK/full" 0 $((open + M)))
check_eq "window opens at the block holding instruction $N" "$open" \
    "$(window_switch "$WORK/w" 0 1)"
check_eq "window closes at the first block from $((open + M))" "$close" \
    "$(window_switch "$WORK/w" 0 0)"
check_eq "first block of the window" "$open" \
    "$(awk '$3 == "exec_tb" { print $2; exit }' "$WORK/w")"
window_cut "$WORK/full" 0 "$open" "$close" > "$WORK/cut"
window_records "$WORK/w" 0 > "$WORK/win"
window_compare "start-at=$N stop-after=$M" "$WORK/cut" "$WORK/win"
check_grep "the trace is complete" "^end: *complete" \
    "$("$QTRACE" info "$WORK/w.qtr" > "$WORK/info"; echo "$WORK/info")"

# The same through the CLI, with stop-after alone (the window opens at
# the first block).
"$QTRACE" record -q -e "$EV" --stop-after=$M -o "$WORK/r.qtr" \
    -- "$GUEST" 100 > /dev/null 2> "$WORK/err"
check_eq "record --stop-after status" 0 "$?"
"$QTRACE" dump "$WORK/r.qtr" > "$WORK/r"
first=$(awk '$1 == 0 && $3 == "exec_tb" { print $2; exit }' "$WORK/full")
close=$(window_block_from "$WORK/full" 0 $((first + M)))
window_cut "$WORK/full" 0 "$first" "$close" > "$WORK/cut"
window_records "$WORK/r" 0 > "$WORK/win"
window_compare "record --stop-after=$M" "$WORK/cut" "$WORK/win"

"$QTRACE" record -q -e "$EV" --start-at=$N -o "$WORK/s.qtr" \
    -- "$GUEST" 100 > /dev/null 2> "$WORK/err"
check_eq "record --start-at status" 0 "$?"
"$QTRACE" dump "$WORK/s.qtr" > "$WORK/s"
window_cut "$WORK/full" 0 "$open" "" > "$WORK/cut"
window_records "$WORK/s" 0 > "$WORK/win"
window_compare "record --start-at=$N (to the end)" "$WORK/cut" "$WORK/win"
finish
