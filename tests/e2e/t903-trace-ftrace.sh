#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The ftrace backend of the tracing runtime: with a writable tracefs each
# event is one trace_marker write, found in the kernel's trace buffer as
# "tracing_mark_write: name args"; without one (most containers) the
# program says so in one line, traces nothing else and succeeds. The
# second case is checked, then the test skips, since nothing reached a
# kernel buffer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace-lib.sh"

marker=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
    if [ -w "$d/trace_marker" ]; then
        marker=$d
        break
    fi
done

demo ftrace --trace 'demo_*'
check_eq "status" 0 "$RC"
if [ -z "$marker" ]; then
    check_eq "one note without tracefs" \
        "qtrace-trace: ftrace: no writable trace_marker (tracefs not mounted at /sys/kernel/tracing, or no permission): ftrace events are not written" \
        "$(cat "$WORK/err")"
    [ "$n_fail" -eq 0 ] || finish
    skip "no writable tracefs trace_marker (needs root and a mounted tracefs)"
fi

check_eq "nothing on stderr" "" "$(cat "$WORK/err")"
grep "trace-events-de-$PID\|-$PID " "$marker/trace" | \
    sed -n 's/.*tracing_mark_write: //p' > "$WORK/got"
check_eq "marker lines = the demo's echo" "$(cat "$WORK/out")" \
    "$(cat "$WORK/got")"
finish
