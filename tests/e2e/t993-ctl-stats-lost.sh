#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stats per vCPU with lossy=on and an output that cannot keep up (a FIFO
# drained slowly): the spinning ctl-wait guest of ARCH loses chunks, and
# stats says so for its vCPU (vcpu0_lost, the same as lost for the one
# vCPU), while the guest runs; at exit END's lost= is at least that.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ctl-lib.sh"
use_guest ctl-wait "$ARCH"
SOCK=$WORK/c.sock

mkfifo "$WORK/fifo"
: > "$WORK/t.qtr"
(
    exec < "$WORK/fifo"
    while :; do
        dd bs=65536 count=1 iflag=fullblock status=none > "$WORK/piece"
        [ -s "$WORK/piece" ] || break
        cat "$WORK/piece" >> "$WORK/t.qtr"
        sleep 0.05
    done
) &
drain=$!
ctl_start_guest "$SOCK" "$WORK/fifo" \
    ",events=exec_tb,encoding=raw,compress=off,lossy=on,chunk=64k,buffer=128k" \
    spin "$WORK/stop"
ctl_wait_socket "$SOCK"
sleep 1
"$QTRACE" ctl "$SOCK" stats > "$WORK/stats"
check_eq "stats status" 0 "$?"
lost=$(awk '$1 == "lost" { print $2 }' "$WORK/stats")
vlost=$(awk '$1 == "vcpu0_lost" { print $2 }' "$WORK/stats")
if [ "${vlost:-0}" -gt 0 ]; then
    pass "stats: vCPU 0 lost $vlost records"
else
    fail "stats: vcpu0_lost '$vlost' (lost '$lost')"
fi
check_eq "stats: one vCPU, its losses are all of them" "$lost" "$vlost"
ctl_stop_guest "$WORK/stop"
check_eq "guest status" 0 "$QEMU_STATUS"
wait "$drain"
end_lost=$("$QTRACE" info "$WORK/t.qtr" | sed -n 's/^lost: *//p')
if [ "${end_lost:-0}" -ge "${vlost:-1}" ]; then
    pass "END lost=$end_lost, at least the $vlost stats said"
else
    fail "END lost='$end_lost' below the $vlost stats said"
fi
finish
