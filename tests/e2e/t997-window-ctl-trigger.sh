#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Window triggers set through the control socket while the ctl-wait
# guest of ARCH is blocked in its read (fifo mode: ROUNDS rounds of
# work, a read of the fifo, the same rounds again; the function rounds()
# runs once before the read and once after), each against a full trace
# of the same run:
#   A, a run started without a window: start-at rounds and stop-after
#     5000 open a window at rounds()'s block after the read and close it
#     at the first block 5000 instructions on; before that the reply
#     says the change waits for a flush.
#   B, a run started with start-at=rounds: stop-at ADDR (rounds()'s
#     address) closes the window at rounds()'s second block.
# Refusals are one line each and change nothing: an unknown symbol, a
# bad value, snapshot-at without ring=.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ctl-lib.sh"
. "$(dirname "$0")/window-lib.sh"
use_guest ctl-wait "$ARCH"
command -v nm > /dev/null || skip "nm not installed (binutils)"
SOCK=$WORK/c.sock
EV='exec_tb;tb_trans;syscall_ret'
addr=$(nm "$GUEST" | awk '$3 == "rounds" { print "0x" $1; exit }' |
       sed -E 's/0x0+/0x/')
[ -n "$addr" ] || skip "no rounds() in $GUEST"

# run_blocked TRACE OPTS CMDS...: run the guest until it blocks in its
# read, send each control command (stdout and stderr kept in
# $WORK/ctl.N), then let it finish.
run_blocked() {
    rb_trace=$1
    rb_opts=$2
    shift 2
    rm -f "$WORK/fifo" "$WORK/guest.out"
    mkfifo "$WORK/fifo"
    ctl_start_guest "$SOCK" "$rb_trace" "$rb_opts" fifo "$WORK/fifo"
    ctl_wait_socket "$SOCK"
    ctl_wait_file "$WORK/guest.out" ready
    rb_n=0
    for rb_cmd in "$@"; do
        rb_n=$((rb_n + 1))
        # shellcheck disable=SC2086
        "$QTRACE" ctl "$SOCK" $rb_cmd > "$WORK/ctl.$rb_n" 2>&1
        echo "status $?" >> "$WORK/ctl.$rb_n"
    done
    echo go > "$WORK/fifo"
    wait "$QEMU_PID"
    QEMU_STATUS=$?
}

# The full trace: where the read returned, where rounds() runs.
run_blocked "$WORK/full.qtr" ",events=$EV"
check_eq "full run: status" 0 "$QEMU_STATUS"
"$QTRACE" dump "$WORK/full.qtr" > "$WORK/full"
read_ret=$(awk '$1 == 0 && $3 == "syscall_ret" && /\| read($| )/ { print $2 }' \
           "$WORK/full" | tail -n 1)
calls=$(awk -v pc="$addr" '$1 == 0 && $3 == "exec_tb" && $5 == pc {
            print $2 }' "$WORK/full")
first_call=$(echo "$calls" | sed -n 1p)
second_call=$(echo "$calls" | sed -n 2p)
if [ -n "$read_ret" ] && [ -n "$second_call" ] &&
   [ "$second_call" -gt "$read_ret" ] && [ "$first_call" -lt "$read_ret" ]; then
    pass "rounds() at $first_call and $second_call, the read returns at $read_ret"
else
    fail "rounds() at '$calls', the read returns at '$read_ret'"
    finish
fi

# A: a run without a window gets one.
run_blocked "$WORK/a.qtr" ",events=$EV" "window" "start-at rounds" \
    "stop-after 5000" "window" "start-at no_such_function" \
    "start-at 12ab" "snapshot-at marker" "stop-at main()"
check_eq "A: status" 0 "$QEMU_STATUS"
check_grep "A: no window at first" "^mode none\$" "$WORK/ctl.1"
check_eq "A: start-at rounds" "status 0" "$(cat "$WORK/ctl.2")"
check_eq "A: stop-after 5000" "status 0" "$(cat "$WORK/ctl.3")"
check_grep "A: the change waits for a flush" "^waiting_flush yes\$" \
    "$WORK/ctl.4"
check_grep "A: unknown symbol refused" \
    "^qtrace ctl: start-at: no_such_function: no such symbol in .*ctl-wait-$ARCH\$" \
    "$WORK/ctl.5"
check_eq "A: a bad value refused" \
    "qtrace ctl: start-at: 12ab: expected a count, 0xADDRESS, a symbol or marker
status 1" "$(cat "$WORK/ctl.6")"
check_eq "A: snapshot-at without ring= refused" \
    "qtrace ctl: snapshot-at: no rings to write (the plugin records without ring=)
status 1" "$(cat "$WORK/ctl.7")"
check_eq "A: stop-at main() refused" \
    "qtrace ctl: stop-at: main(): expected 0xADDRESS, a symbol or marker
status 1" "$(cat "$WORK/ctl.8")"
"$QTRACE" dump "$WORK/a.qtr" > "$WORK/a"
close=$(window_block_from "$WORK/full" 0 $((second_call + 5000)))
check_eq "A: opens at rounds()'s block after the read" "$second_call" \
    "$(window_switch "$WORK/a" 0 1)"
check_eq "A: closes at the first block from $((second_call + 5000))" \
    "$close" "$(awk '$1 == 0 && $3 == "trace_switch" && $NF == 0 &&
                     $2 > '"$second_call"' { print $2; exit }' "$WORK/a")"
window_cut "$WORK/full" 0 "$second_call" "$close" > "$WORK/cut"
awk -v o="$second_call" '$2 >= o' "$WORK/a" > "$WORK/a.late"
window_records "$WORK/a.late" 0 > "$WORK/win"
window_compare "A: start-at rounds, stop-after 5000" "$WORK/cut" "$WORK/win"

# B: stop-at through the control socket in a run with a window.
run_blocked "$WORK/b.qtr" ",events=$EV,start-at=rounds" "stop-at $addr" \
    "window"
check_eq "B: status" 0 "$QEMU_STATUS"
check_eq "B: stop-at $addr" "status 0" "$(cat "$WORK/ctl.1")"
"$QTRACE" dump "$WORK/b.qtr" > "$WORK/b"
check_eq "B: opens at rounds()'s first block" "$first_call" \
    "$(window_switch "$WORK/b" 0 1)"
check_eq "B: closes at rounds()'s second block" "$second_call" \
    "$(window_switch "$WORK/b" 0 0)"
window_cut "$WORK/full" 0 "$first_call" "$second_call" > "$WORK/cut"
window_records "$WORK/b" 0 > "$WORK/win"
window_compare "B: start-at=rounds, stop-at $addr" "$WORK/cut" "$WORK/win"
finish
