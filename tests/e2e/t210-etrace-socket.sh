#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# etrace=unix:PATH on ARCH, with the test peer (etrace-peer.py) at the
# other end: a listening peer gets the same records as etrace=FILE; with
# nobody listening QEMU listens (socket mode 0600) and waits for the peer;
# a peer that disconnects or stalls mid-run stops the etrace output with
# one message while the guest finishes with its own status and the native
# trace stays complete (etrace-peer-lost=stop stops QEMU instead); with
# etrace-wait=1 and no peer, QEMU does not start.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/etrace-lib.sh"
use_guest syscalls "$ARCH"
BIG=$GUEST                  # a C guest: megabytes of etrace with flags all
BIG_EXIT=3                  # its exit status (syscalls.c)
use_guest asm "$ARCH"
ASM=$GUEST

# wait_for TEST ARG: up to 10 s for `test TEST ARG` to hold.
wait_for() {
    n=0
    while ! test "$1" "$2" && [ "$n" -lt 100 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    test "$1" "$2"
}

# start_peer NAME ARGS...: the peer listening at $WORK/NAME.sock in the
# background ($peer_pid), output in $WORK/NAME.peer; returns once it
# listens.
start_peer() {
    sock="$WORK/$1.sock"
    name=$1
    shift
    peer listen "$sock" "$@" > "$WORK/$name.peer" 2> "$WORK/$name.perr" &
    peer_pid=$!
    wait_for -e "$sock.ready" || fail "$name: the peer did not start"
}

# Reference: the same flags to a file.
"$QTRACE" record -o "$WORK/ref.qtr" -O "etrace=$WORK/ref.etr" \
    -O etrace-flags=exec,mem,disas -- "$ASM" > /dev/null 2>&1
peer decode "$WORK/ref.etr" > "$WORK/ref.peer"

# 1. A peer listens: QEMU connects to it.
start_peer a
"$QTRACE" record -o "$WORK/a.qtr" -O "etrace=unix:$WORK/a.sock" \
    -O etrace-flags=exec,mem,disas -- "$ASM" > /dev/null 2> "$WORK/a.err"
check_eq "connected: guest exit status" "$(expect_get exit)" "$?"
wait "$peer_pid"
check_eq "connected: peer status" 0 "$?"
if cmp -s "$WORK/ref.peer" "$WORK/a.peer"; then
    pass "connected: the peer got what etrace=FILE holds"
else
    fail "connected: the peer's records differ from etrace=FILE's"
    diff "$WORK/ref.peer" "$WORK/a.peer" | head -5
fi

# 2. Nobody listens: QEMU listens, owner-only, and waits for a peer.
SOCK="$WORK/b.sock"
"$QTRACE" record -o "$WORK/b.qtr" -O "etrace=unix:$SOCK" \
    -O etrace-flags=exec,mem,disas -- "$ASM" > /dev/null 2> "$WORK/b.err" &
qemu_pid=$!
if wait_for -S "$SOCK"; then
    check_eq "listening: socket mode" 600 "$(stat -c %a "$SOCK")"
    peer connect "$SOCK" > "$WORK/b.peer" 2> "$WORK/b.perr"
    check_eq "listening: peer status" 0 "$?"
else
    fail "listening: no socket at $SOCK"
    kill "$qemu_pid"
fi
wait "$qemu_pid"
check_eq "listening: guest exit status" "$(expect_get exit)" "$?"
WAITING="no peer listening; waiting for one to connect"
check_grep "listening: QEMU says it waits" \
    "^qtrace: etrace=unix:$SOCK: $WAITING\$" "$WORK/b.err"
if cmp -s "$WORK/ref.peer" "$WORK/b.peer"; then
    pass "listening: the peer got what etrace=FILE holds"
else
    fail "listening: the peer's records differ from etrace=FILE's"
fi
check_eq "listening: socket removed once connected" no \
    "$(test -e "$SOCK" && echo yes || echo no)"

# The native trace of the big guest without etrace, to compare with; raw
# records, as with etrace= (whose sink reads records on the writer thread).
EVENTS='tb_trans,exec_tb,mem_access,vcpu_*,syscall*,order'
"$QTRACE" record -e "$EVENTS" -O encoding=raw -o "$WORK/big.qtr" -- "$BIG" \
    > /dev/null
"$QTRACE" info "$WORK/big.qtr" | sed -n '/^events:$/,$p' > "$WORK/big.counts"

# lost_peer NAME WANT_STATUS MESSAGE PEER_ARGS -- PLUGIN_OPTS: the big
# guest with a misbehaving peer; one qtrace line on stderr, the status,
# and a complete native trace.
lost_peer() {
    name=$1
    want=$2
    msg=$3
    shift 3
    start_peer "$name" "$@"
    # $extra is "" or "-O KEY=VALUE": split on purpose.
    # shellcheck disable=SC2086
    "$QTRACE" record -q -e "$EVENTS" -o "$WORK/$name.qtr" \
        -O "etrace=unix:$WORK/$name.sock" -O etrace-flags=all \
        $extra -- "$BIG" > /dev/null 2> "$WORK/$name.err"
    check_eq "$name: exit status" "$want" "$?"
    kill "$peer_pid" 2> /dev/null
    wait "$peer_pid" 2> /dev/null
    check_eq "$name: qtrace lines on stderr" 1 \
        "$(grep -c '^qtrace' "$WORK/$name.err")"
    check_grep "$name: the message" \
        "^qtrace: etrace=unix:$WORK/$name.sock: $msg\$" "$WORK/$name.err"
    "$QTRACE" info "$WORK/$name.qtr" > "$WORK/$name.info"
    check_grep "$name: native trace complete" \
        "^end: complete( \\(exit [0-9]+\\))?$" "$WORK/$name.info"
}

# 3. The peer disconnects after 4 KiB: the guest runs on.
extra=
lost_peer gone "$BIG_EXIT" \
    "peer disconnected; tracing to it stopped" --close-after 4096
sed -n '/^events:$/,$p' "$WORK/gone.info" > "$WORK/gone.counts"
if cmp -s "$WORK/big.counts" "$WORK/gone.counts"; then
    pass "gone: native trace has every record a run without etrace has"
else
    fail "gone: native trace counts differ from a run without etrace"
    diff "$WORK/big.counts" "$WORK/gone.counts" | head -5
fi

# 4. The same with etrace-peer-lost=stop: QEMU stops, status 1.
extra="-O etrace-peer-lost=stop"
lost_peer stop 1 \
    "peer disconnected; stopping QEMU \\(etrace-peer-lost=stop\\)" \
    --close-after 4096

# 5. The peer takes nothing: dropped after etrace-stall=1 second.
extra="-O etrace-stall=1"
start=$(date +%s)
lost_peer stall "$BIG_EXIT" \
    "peer stalled \\(took no data for 1 s\\); tracing to it stopped" \
    --stall 30
elapsed=$(($(date +%s) - start))
if [ "$elapsed" -lt 20 ]; then
    pass "stall: the run took ${elapsed} s, not the peer's 30"
else
    fail "stall: the run took ${elapsed} s"
fi

# 6. Nobody comes within etrace-wait=1: QEMU does not start.
"$QTRACE" record -o "$WORK/w.qtr" -O "etrace=unix:$WORK/w.sock" \
    -O etrace-wait=1 -- "$ASM" > /dev/null 2> "$WORK/w.err"
check_eq "wait: status" 1 "$?"
check_grep "wait: the message" \
    "^qtrace: etrace=unix:$WORK/w.sock: no peer connected within 1 s$" \
    "$WORK/w.err"
check_eq "wait: socket removed" no \
    "$(test -e "$WORK/w.sock" && echo yes || echo no)"
finish
