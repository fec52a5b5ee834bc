#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The log backend of the tracing runtime, on trace-events-demo: every
# enabled event gives QEMU's line "TID@SEC.USEC:name args" on stderr, the
# same text the demo printed with its own printf, also from eight threads
# at once; --msg timestamp=off drops the prefix; patterns, events files (with -name), QTRACE_TRACE and
# the "disable" property choose what appears; the nop build writes nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace-lib.sh"

# All events, no timestamps: stderr is exactly what the demo echoed.
demo log --trace 'demo_*' --msg timestamp=off
check_eq "status" 0 "$RC"
check_eq "log lines = the demo's own echo" "$(cat "$WORK/out")" \
    "$(cat "$WORK/err")"
check_eq "8 events traced (3 jobs)" 8 "$(wc -l < "$WORK/err")"
check_eq "'disable' event never traced" 0 \
    "$(grep -c '^demo_hot' "$WORK/err")"

# Timestamps on (the default): TID@SEC.USEC: then the same text.
before=$(date +%s)
demo log --trace 'demo_*'
after=$(date +%s)
check_eq "prefixed lines" 8 \
    "$(grep -Ec "^$PID@[0-9]+\.[0-9]{6}:demo_" "$WORK/err")"
check_eq "text after the prefix" "$(cat "$WORK/out")" \
    "$(sed -E 's/^[0-9]+@[0-9]+\.[0-9]{6}://' "$WORK/err")"
sec=$(sed -E -n '1s/^[0-9]+@([0-9]+)\..*/\1/p' "$WORK/err")
check_eq "seconds are the wall clock's" yes \
    "$([ "$sec" -ge "$before" ] && [ "$sec" -le "$after" ] && echo yes)"

# QTRACE_MSG in the environment does what --msg does.
QTRACE_MSG=timestamp=off demo log --trace 'demo_*'
check_eq "QTRACE_MSG=timestamp=off" "$(cat "$WORK/out")" "$(cat "$WORK/err")"

# One pattern: only its event.
demo log --trace demo_job --msg timestamp=off
check_eq "--trace demo_job" "$(grep '^demo_job ' "$WORK/out")" \
    "$(cat "$WORK/err")"

# An events file: a glob, a comment, and -name disabling one again.
printf 'demo_*\n# not this one:\n-demo_job\n' > "$WORK/events"
demo log --trace "events=$WORK/events" --msg timestamp=off
check_eq "events=FILE with -demo_job" "$(grep -v '^demo_job ' "$WORK/out")" \
    "$(cat "$WORK/err")"

# The environment alone: QTRACE_TRACE, ';'-separated --trace arguments.
QTRACE_TRACE='enable=demo_start;demo_done' demo log --msg timestamp=off
check_eq "QTRACE_TRACE" "$(grep -E '^demo_(start|done) ' "$WORK/out")" \
    "$(cat "$WORK/err")"

# Nothing enabled: nothing written.
demo log --msg timestamp=off
check_eq "no event enabled, no line" "" "$(cat "$WORK/err")"

# file= sends the log backend's lines to a file (no simple backend here).
demo log --trace "demo_*,file=$WORK/log.txt" --msg timestamp=off
check_eq "file= for the log backend" "$(cat "$WORK/out")" \
    "$(cat "$WORK/log.txt")"

# The state as the control API reports it, by glob.
demo log --trace 'demo_[sb]*' --list 'demo_*'
check_eq "iteration and dynamic state" "demo_start : state 1
demo_job : state 0
demo_buffer : state 1
demo_signed : state 1
demo_hot : state 0
demo_cpu : state 0
demo_done : state 0" "$(cat "$WORK/out")"

# The nop backend: same program, no output at all.
demo nop --trace 'demo_*'
check_eq "nop: status" 0 "$RC"
check_eq "nop: nothing on stderr" "" "$(cat "$WORK/err")"

# Eight threads tracing at once: every line whole, none lost or doubled.
demo log --trace 'demo_*' --msg timestamp=off --threads 8 --jobs 500
check_eq "threads: lines = the echo, in any order" \
    "$(sort "$WORK/out" | md5sum)" "$(sort "$WORK/err" | md5sum)"
check_eq "threads: line count" 4505 "$(wc -l < "$WORK/err")"

# Several backends at once: the log lines are the same.
demo all --trace "demo_*,file=$WORK/all.st" --msg timestamp=off
check_eq "log,simple,ftrace,syslog: log lines" "$(cat "$WORK/out")" \
    "$(grep '^demo_' "$WORK/err")"
finish
