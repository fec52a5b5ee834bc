#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Marker instructions (include/qtrace/marker.h) on the markers guest of
# ARCH, whose three markers are found by objdump from their documented
# encodings, not by qtrace:
#   start-at=marker: a window opens at each block holding the start
#     marker and closes at each block holding the stop marker; its
#     records are those of a full trace of the same run cut there
#     (window-cut.py), N windows for N rounds.
#   stop-at=marker alone: open from the first block to the first stop.
#   start-at=0xADDR of the start marker: the same first window, once
#     (an address opens a window once; stop-after=1 closes it).
#   ring= with snapshot-at=marker: the trace holds the records right
#     before the snapshot marker's block (the last ones of the full
#     trace there), then a gap the ring left out, then the run's last
#     records (the exit's snapshot).
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/window-lib.sh"
use_guest markers "$ARCH"
command -v python3 > /dev/null || skip "python3 not installed"
case $ARCH in
    arm) OBJDUMP=arm-linux-gnueabihf-objdump ;;
    *) OBJDUMP=$ARCH-linux-gnu-objdump ;;
esac
command -v "$OBJDUMP" > /dev/null 2>&1 ||
    { [ "$(uname -m)" = "$ARCH" ] && OBJDUMP=objdump; }
command -v "$OBJDUMP" > /dev/null 2>&1 ||
    skip "no objdump for $ARCH (Debian package binutils-$ARCH-linux-gnu)"

# marker_addr K: the address of the guest's one marker of kind K, found
# by its bytes as objdump prints them (the encodings of marker.h).
marker_addr() {
    case $ARCH in
        x86_64) pat="0f 1f 80 51 54 0$1 00" ;;
        aarch64) pat=$(printf 'f2ca20%x' $((0x1f + 32 * $1))) ;;
        riscv64) pat="51$1""02013" ;;
        arm) pat="f3af 805$1" ;;
    esac
    "$OBJDUMP" -d "$GUEST" | awk -F'\t' -v p="$pat" '
        index($2, p) == 1 { sub(/:$/, "", $1); gsub(/ /, "", $1); print "0x" $1 }'
}
START=$(marker_addr 1)
STOP=$(marker_addr 2)
SNAP=$(marker_addr 3)
for m in "$START" "$STOP" "$SNAP"; do
    case $m in
        0x*[!0-9a-f]* | "" | *" "*) fail "markers in $GUEST: '$START' '$STOP' '$SNAP'"; finish ;;
    esac
done
pass "one marker of each kind: $START $STOP $SNAP"

N=3
EV='exec_tb;exec_insn;mem_access;tb_trans'
CUT="python3 $(dirname "$0")/window-cut.py"
"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/full.qtr,events=$EV" \
    "$GUEST" $N > "$WORK/full.out"
check_eq "full run status" 0 "$?"
"$QTRACE" dump "$WORK/full.qtr" > "$WORK/full"

# switches DUMP: stream 0's window edges as window-cut.py prints them.
switches() {
    awk '$1 == 0 && $3 == "trace_switch" && $2 > 0 {
        print ($NF == 1 ? "open" : "close"), $2 }' "$1"
}

# start-at=marker: every round's window, exactly.
"qemu-$ARCH" -plugin \
    "$QTRACE_PLUGIN,out=$WORK/w.qtr,events=$EV,start-at=marker" \
    "$GUEST" $N > "$WORK/w.out"
check_eq "start-at=marker: status" 0 "$?"
check_eq "start-at=marker: the guest's output" "$(cat "$WORK/full.out")" \
    "$(cat "$WORK/w.out")"
"$QTRACE" dump "$WORK/w.qtr" > "$WORK/w"
$CUT "$WORK/full" 0 "$START" "$STOP" > "$WORK/edges"
check_eq "start-at=marker: $N windows in the full trace" $((2 * N)) \
    "$(wc -l < "$WORK/edges" | tr -d ' ')"
check_eq "start-at=marker: edges where the markers' blocks start" \
    "$(cat "$WORK/edges")" "$(switches "$WORK/w")"
$CUT "$WORK/full" 0 "$START" "$STOP" --records > "$WORK/cut"
window_records "$WORK/w" 0 > "$WORK/win"
window_compare "start-at=marker" "$WORK/cut" "$WORK/win"
# By construction each window holds 100 iterations of a load and a store.
stores=$(awk '$3 == "mem_access" && / store$/' "$WORK/w" | wc -l)
if [ "$stores" -ge $((100 * N)) ]; then
    pass "start-at=marker: $stores stores in the windows (>= $((100 * N)))"
else
    fail "start-at=marker: $stores stores in the windows (< $((100 * N)))"
fi

# stop-at=marker alone: from the first block to the first stop marker.
"qemu-$ARCH" -plugin \
    "$QTRACE_PLUGIN,out=$WORK/s.qtr,events=$EV,stop-at=marker" \
    "$GUEST" $N > /dev/null
check_eq "stop-at=marker: status" 0 "$?"
"$QTRACE" dump "$WORK/s.qtr" > "$WORK/s"
first_close=$(awk '$1 == "close" { print $2; exit }' "$WORK/edges")
check_eq "stop-at=marker: closes at the first stop marker's block" \
    "close $first_close" "$(switches "$WORK/s")"
window_cut "$WORK/full" 0 0 "$first_close" > "$WORK/cut"
window_records "$WORK/s" 0 > "$WORK/win"
window_compare "stop-at=marker" "$WORK/cut" "$WORK/win"

# start-at=ADDR of the start marker opens once.
"qemu-$ARCH" -plugin \
    "$QTRACE_PLUGIN,out=$WORK/a.qtr,events=$EV,start-at=$START" \
    "$GUEST" $N > /dev/null
check_eq "start-at=$START: status" 0 "$?"
"$QTRACE" dump "$WORK/a.qtr" > "$WORK/a"
first_open=$(awk '$1 == "open" { print $2; exit }' "$WORK/edges")
check_eq "start-at=$START: one window, from the first start marker" \
    "open $first_open" "$(switches "$WORK/a")"

# snapshot-at=marker: the last records before the marker's block.
"qemu-$ARCH" -plugin \
    "$QTRACE_PLUGIN,out=$WORK/r.qtr,events=$EV,chunk=64k,ring=128k,snapshot-at=marker" \
    "$GUEST" 30 > /dev/null
check_eq "snapshot-at=marker: status" 0 "$?"
"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/f30.qtr,events=$EV" \
    "$GUEST" 30 > /dev/null
"$QTRACE" dump "$WORK/f30.qtr" > "$WORK/f30"
"$QTRACE" dump "$WORK/r.qtr" > "$WORK/r"
T=$($CUT "$WORK/f30" 0 "$SNAP" - | awk '{ print $2; exit }')
[ -n "$T" ] || { fail "no snapshot marker block in the full trace"; finish; }
recs() {
    awk '$1 == 0 && ($3 == "exec_tb" || $3 == "exec_insn" ||
                               $3 == "mem_access") && '"$2" "$1" |
        window_normal
}
recs "$WORK/r" '$2 < '"$T" > "$WORK/r.before"
recs "$WORK/r" '$2 >= '"$T" > "$WORK/r.after"
nb=$(wc -l < "$WORK/r.before" | tr -d ' ')
na=$(wc -l < "$WORK/r.after" | tr -d ' ')
recs "$WORK/f30" '$2 < '"$T" | tail -n "$nb" > "$WORK/f.before"
recs "$WORK/f30" '1' | tail -n "$na" > "$WORK/f.after"
window_compare "snapshot-at=marker: before the marker's block at $T" \
    "$WORK/f.before" "$WORK/r.before"
window_compare "snapshot-at=marker: the exit's snapshot" \
    "$WORK/f.after" "$WORK/r.after"
check_eq "snapshot-at=marker: the snapshot ends right before $T" \
    "$(recs "$WORK/f30" '$2 < '"$T" | tail -n 1)" \
    "$(tail -n 1 "$WORK/r.before")"
# Two snapshots, not one tail: the full trace has records between them.
last_before=$(tail -n 1 "$WORK/r.before" | awk '{ print $2 }')
first_after=$(head -n 1 "$WORK/r.after" | awk '{ print $2 }')
gap=$(recs "$WORK/f30" '$2 > '"${last_before:-0}"' && $2 < '"${first_after:-0}" |
      wc -l)
if [ "$gap" -gt 0 ]; then
    pass "snapshot-at=marker: $gap records left out between the snapshots"
else
    fail "snapshot-at=marker: no gap between the snapshots ($last_before, $first_after)"
fi
finish
