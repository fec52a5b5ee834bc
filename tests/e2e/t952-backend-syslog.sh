#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backend=syslog: QEMU with the plugin runs in a mount namespace of its
# own (unshare -m) whose /dev/log is a datagram socket this test reads,
# so the host's log is untouched. Each record must arrive as QEMU's
# syslog backend sends it: priority <30> (LOG_DAEMON, LOG_INFO),
# "qemu-ARCH[PID]: " (LOG_PID), then "name format-output", the same
# text as the native trace's dump, and the asm guest's blocks as many
# times as its construction says.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/devlog-lib.sh"
. "$(dirname "$0")/backends-lib.sh"
use_guest asm "$ARCH"

QEMU=$(command -v "qemu-$ARCH")
plugin="$QTRACE_PLUGIN,out=t.qtr,events=exec_tb,backend=syslog"
run_with_devlog "\"$QEMU\" -plugin \"$plugin\" \"$GUEST\""
check_eq "guest exit status" "$(expect_get exit)" "$(cat "$WORK/rc")"
check_eq "nothing on stderr" "" "$(cat "$WORK/err")"
pid=$(cat "$WORK/pid")
n=$(wc -l < "$WORK/syslog")
check_eq "priority <30>, ident qemu-$ARCH[PID] on every message" "$n" \
    "$(grep -Ec "^<30>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} qemu-$ARCH\[$pid\]: [a-z_]+ " "$WORK/syslog")"
sed -E 's/^<30>.{15} [^:]*: //' "$WORK/syslog" > "$WORK/lines"
check_eq "exec_tb per block = the guest's construction" \
    "$(expect_blocks)" "$(count_blocks < "$WORK/lines")"
"$QTRACE" dump "$WORK/t.qtr" | cut -d' ' -f3- | sed 's/ | .*//' \
    > "$WORK/dump"
check_same "messages = native dump lines" "$WORK/dump" "$WORK/lines"
finish
