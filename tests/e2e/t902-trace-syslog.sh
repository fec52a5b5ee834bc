#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The syslog backend of the tracing runtime: trace-events-demo runs in a
# mount namespace of its own (unshare -m) whose /dev/log is a datagram
# socket this test reads, so syslog(3) hands its messages to us and the
# host's log is untouched. Each event must arrive as QEMU sends it:
# facility LOG_DAEMON, level LOG_INFO (priority <30>), "ident[PID]: " from
# LOG_PID, then "name args" as the demo echoed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/devlog-lib.sh"
. "$(dirname "$0")/trace-lib.sh"

run_with_devlog "\"$DEMO_DIR/trace-events-demo-syslog\" --trace 'demo_*'"
check_eq "demo status" 0 "$(cat "$WORK/rc")"
check_eq "nothing on stderr" "" "$(cat "$WORK/err")"
pid=$(cat "$WORK/pid")
check_eq "one message per event" "$(wc -l < "$WORK/out")" \
    "$(wc -l < "$WORK/syslog")"
check_eq "priority <30> (LOG_DAEMON, LOG_INFO), ident[PID] (LOG_PID)" \
    "$(wc -l < "$WORK/out")" \
    "$(grep -Ec "^<30>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} trace-events-demo-syslog\[$pid\]: demo_" "$WORK/syslog")"
check_eq "messages = the demo's echo" "$(cat "$WORK/out")" \
    "$(sed -E 's/^<30>.{15} [^:]*: //' "$WORK/syslog")"
finish
