#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The control socket in system mode: the pc machine's BIOS (no disk: it
# waits for a boot device) under qemu-system-x86_64 7.2 (Debian) or the
# 10.0 that scripts/fetch-qemu10.sh unpacks into $QEMU10_DIR. While it
# runs: info trace-events, stats, and a flush that `qtrace info` reads
# (no END yet); after SIGTERM the trace is complete with nothing lost and
# the socket is gone. Usage: t994-ctl-system.sh 7.2|10.0.
PART=${1:?usage: t994-ctl-system.sh 7.2|10.0}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
TEST_NAME=t994-ctl-system-$PART
# shellcheck source=tests/e2e/ctl-lib.sh
. "$(dirname "$0")/ctl-lib.sh"

SOCK=$WORK/c.sock
T=$WORK/t.qtr

ctl_start_bios "$PART" "$SOCK" "$T"
ctl_wait_socket "$SOCK"
sleep 1

"$QTRACE" ctl "$SOCK" info trace-events exec_tb > "$WORK/ev" 2>&1
check_eq "info trace-events exec_tb" "exec_tb : state 1" "$(cat "$WORK/ev")"
"$QTRACE" ctl "$SOCK" stats > "$WORK/s1"
check_eq "stats status" 0 $?
sleep 0.5
"$QTRACE" ctl "$SOCK" stats > "$WORK/s2"
if [ "$(stat_get "$WORK/s2" insns)" -gt "$(stat_get "$WORK/s1" insns)" ] &&
   [ "$(stat_get "$WORK/s1" insns)" -gt 0 ]; then
    pass "stats insns grow: $(stat_get "$WORK/s1" insns) <" \
         "$(stat_get "$WORK/s2" insns)"
else
    fail "stats insns: $(stat_get "$WORK/s1" insns)," \
         "$(stat_get "$WORK/s2" insns)"
fi
"$QTRACE" ctl "$SOCK" trace-file flush > "$WORK/flush"
check_eq "trace-file flush status" 0 $?
check_eq "no vCPU left holding records" 0 \
    "$(stat_get "$WORK/flush" pending_vcpus)"
"$QTRACE" info "$T" > "$WORK/info-live" 2>&1
check_eq "qtrace info while running: status 3 (no END)" 3 $?
live=$(info_get "$WORK/info-live" records)
if [ "${live:-0}" -ge "$(stat_get "$WORK/flush" records)" ]; then
    pass "the file holds the $(stat_get "$WORK/flush" records) records" \
         "flushed ($live)"
else
    fail "the file holds $live records, $(stat_get "$WORK/flush" records)" \
         "were flushed"
fi

kill -TERM "$QEMU_PID"
wait "$QEMU_PID"
check_eq "QEMU exit status after SIGTERM" 0 $?
[ ! -e "$SOCK" ] && pass "socket removed at exit" || fail "socket left"
"$QTRACE" info "$T" > "$WORK/info" 2>&1
check_eq "qtrace info status" 0 $?
check_grep "END present" "^end: complete" "$WORK/info"
check_eq "lost" 0 "$(info_get "$WORK/info" lost)"
if [ "$(info_get "$WORK/info" records)" -ge "$live" ]; then
    pass "final records >= flushed ones"
else
    fail "final records $(info_get "$WORK/info" records) < $live"
fi
finish
