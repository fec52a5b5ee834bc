#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The simple backend of the tracing runtime writes QEMU's simpletrace
# format (version 4): an independent reader written from the format
# (simpletrace-read.py), qtrace dump and qtrace info, and QEMU's own
# scripts/simpletrace.py when QEMU's sources are at $QEMU_SRC, all read
# back what trace-events-demo echoed. Also: the default file trace-PID,
# file=, switching files mid-run (trace-file set), trace-file off and on,
# trace-file flush, four threads at once, a burst that fits in the
# buffer kept whole, and bursts and racing threads that overflow a small
# buffer (QTRACE_TRACE_BUFFER), whose dropped records account for every
# event.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace-lib.sh"
EV="$DEMO_SRC/trace-events"

demo simple --trace 'demo_*'
check_eq "status" 0 "$RC"
T="$WORK/trace-$PID"
check_eq "default file trace-PID" yes "$([ -s "$T" ] && echo yes)"
echo_as_simple "$WORK/out" "$PID" > "$WORK/want"

python3 "$(dirname "$0")/simpletrace-read.py" "$EV" "$T" > "$WORK/got" \
    2> "$WORK/got.err"
check_eq "independent reader: records = the demo's echo" \
    "$(cat "$WORK/want")" "$(cat "$WORK/got")"

"$QTRACE" dump -t "$EV" "$T" > "$WORK/dump" 2> "$WORK/dump.err"
check_eq "qtrace dump: status" 0 "$?"
check_eq "qtrace dump: records = the demo's echo" "$(cat "$WORK/want")" \
    "$(awk '{ $2 = ""; sub(/  /, " "); print }' "$WORK/dump")"
# Timestamps are CLOCK_MONOTONIC nanoseconds, never going back.
check_eq "qtrace dump: timestamps in order" "$(awk '{ print $2 }' "$WORK/dump")" \
    "$(awk '{ print $2 }' "$WORK/dump" | sort -n)"

"$QTRACE" info "$T" > "$WORK/info"
check_eq "qtrace info: records" "records: 8" "$(grep '^records:' "$WORK/info")"
check_eq "qtrace info: pid" "pid: $PID" "$(grep '^pid:' "$WORK/info")"
check_eq "qtrace info: demo_job count" 3 \
    "$(awk '$1 == "demo_job" { print $2 }' "$WORK/info")"

# QEMU's own reader, when QEMU_SRC names a tree holding its
# scripts/simpletrace.py and scripts/tracetool/ (checked with QEMU 7.2's
# and 8.2's, both format version 4).
qemu_simpletrace() {
    PYTHONPATH="$QEMU_SRC/scripts" python3 \
        "$QEMU_SRC/scripts/simpletrace.py" "$EV" "$1"
}
if [ -n "$QEMU_SRC" ] && [ -f "$QEMU_SRC/scripts/simpletrace.py" ]; then
    # QEMU up to 7.2 gives a vcpu event the implicit __cpu argument, as
    # qtrace does (its tracetool has vcpu.py); QEMU 8 dropped it, and its
    # script would read demo_cpu's record one argument short.
    if [ -f "$QEMU_SRC/scripts/tracetool/vcpu.py" ]; then
        printf 'demo_*\n' > "$WORK/qemu-events"
    else
        printf 'demo_*\n-demo_cpu\n' > "$WORK/qemu-events"
    fi
    demo simple --trace "events=$WORK/qemu-events,file=$WORK/q.st"
    qemu_simpletrace "$WORK/q.st" > "$WORK/qemu" 2>&1
    check_eq "simpletrace.py: status" 0 "$?"
    if [ -f "$QEMU_SRC/scripts/tracetool/vcpu.py" ]; then
        cp "$WORK/out" "$WORK/out.q"
    else
        grep -v '^demo_cpu ' "$WORK/out" > "$WORK/out.q"
    fi
    # "name delta_us pid=PID arg=0x... str=b'text'" (Python 3 shows the
    # string's bytes; QEMU 8.2's leaves a space after an event without
    # arguments): the same as the independent reader without delta.
    check_eq "simpletrace.py: events, pid and arguments" \
        "$(echo_as_simple "$WORK/out.q" "$PID")" \
        "$(cut -d' ' -f1,3- "$WORK/qemu" | sed -E "s/=b'([^']*)'/=\\1/g; s/ +\$//")"
    check_eq "simpletrace.py: no time goes back" "" \
        "$(awk '$2 < 0' "$WORK/qemu")"

    # An overflowing burst: the script's Dropped_Event records and the
    # demo_job records add up to every demo_job traced.
    printf 'demo_job\n' > "$WORK/qemu-events"
    demo simple --trace "events=$WORK/qemu-events,file=$WORK/qb.st" \
        --burst 200000
    qemu_simpletrace "$WORK/qb.st" > "$WORK/qemu" 2>&1
    check_eq "simpletrace.py: burst status" 0 "$?"
    check_eq "simpletrace.py: burst records + dropped" 200003 \
        "$(python3 -c 'import sys
n = 0
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "demo_job":
        n += 1
    elif f[0] == "Dropped_Event":
        n += int(f[3].split("=")[1], 16)
print(n)' "$WORK/qemu")"
else
    echo "NOTE $TEST_NAME: QEMU's simpletrace.py not run: set QEMU_SRC to" \
         "a QEMU source tree (Debian ships none)"
fi

# file=, then trace-file set after the first job: the records split.
demo simple --trace "demo_*,file=$WORK/first" --switch-file "$WORK/second"
echo_as_simple "$WORK/out" "$PID" > "$WORK/want"
python3 "$(dirname "$0")/simpletrace-read.py" "$EV" "$WORK/first" \
    > "$WORK/got1"
python3 "$(dirname "$0")/simpletrace-read.py" "$EV" "$WORK/second" \
    > "$WORK/got2"
check_eq "file=: start and first job" "$(head -2 "$WORK/want")" \
    "$(cat "$WORK/got1")"
check_eq "switched file: the rest" "$(tail -n +3 "$WORK/want")" \
    "$(cat "$WORK/got2")"
check_eq "no trace-PID with file=" no \
    "$([ -e "$WORK/trace-$PID" ] && echo yes || echo no)"

# trace-file off after job 0, on after job 1 (QEMU's monitor commands):
# turning it on again starts the file afresh, so it holds what came after.
demo simple --trace "demo_*,file=$WORK/cycle" --file-cycle 1
echo_as_simple "$WORK/out" "$PID" > "$WORK/want"
python3 "$(dirname "$0")/simpletrace-read.py" "$EV" "$WORK/cycle" \
    > "$WORK/got"
check_eq "trace-file off then on" "$(tail -n +4 "$WORK/want")" \
    "$(cat "$WORK/got")"

# trace-file flush after job 0: by then the file holds exactly the start
# and that job (the independent reader reads that many bytes to just them).
demo simple --trace "demo_*,file=$WORK/flush" --flush-check "$WORK/flush"
size=$(sed -n 's/^flushed //p' "$WORK/err")
head -c "${size:-0}" "$WORK/flush" > "$WORK/flush.head"
echo_as_simple "$WORK/out" "$PID" > "$WORK/want"
check_eq "trace-file flush: the file right after" "$(head -2 "$WORK/want")" \
    "$(python3 "$(dirname "$0")/simpletrace-read.py" "$EV" \
       "$WORK/flush.head")"

# Four threads at once, fewer records than the buffer holds: all of them.
demo simple --trace "demo_*,file=$WORK/threads" --threads 4 --jobs 100
echo_as_simple "$WORK/out" "$PID" | sort > "$WORK/want"
python3 "$(dirname "$0")/simpletrace-read.py" "$EV" "$WORK/threads" | \
    sort > "$WORK/got"
check_eq "threads: records = the echo, in any order" \
    "$(md5sum < "$WORK/want")" "$(md5sum < "$WORK/got")"
check_eq "threads: record count" 505 "$(wc -l < "$WORK/got")"

# A burst that fits in the default 16 MiB buffer (250003 records of 56
# bytes, 14 MB) is kept whole, however late the writer thread runs.
demo simple --trace "demo_job,file=$WORK/big" --burst 250000
"$QTRACE" info "$WORK/big" > "$WORK/info"
check_eq "burst within the buffer: every record kept" \
    "records: 250003 dropped: 0" \
    "$(grep -E '^(records|dropped):' "$WORK/info" | tr '\n' ' ' | sed 's/ $//')"

# A buffer size out of range is refused with one line; the default holds.
QTRACE_TRACE_BUFFER=12 demo simple --trace "demo_job,file=$WORK/bad" \
    --burst 1000
check_eq "QTRACE_TRACE_BUFFER=12: warning" \
    "qtrace-trace: QTRACE_TRACE_BUFFER=12: expected 64k to 1G; using 16M" \
    "$(grep -v '^burst ' "$WORK/err")"
check_eq "QTRACE_TRACE_BUFFER=12: records" "records: 1003" \
    "$("$QTRACE" info "$WORK/bad" | grep '^records:')"

# A burst far bigger than a 64 KiB buffer (QTRACE_TRACE_BUFFER): records
# and dropped counts add up to every demo_job traced (3 echoed + burst).
QTRACE_TRACE_BUFFER=64k demo simple --trace "demo_job,file=$WORK/burst" \
    --burst 200000
python3 "$(dirname "$0")/simpletrace-read.py" "$EV" "$WORK/burst" \
    > "$WORK/got"
jobs=$(grep -c '^demo_job ' "$WORK/got")
drops=$(awk -F'count=' '/^dropped / { n += $2 } END { print n + 0 }' \
    "$WORK/got")
check_eq "burst: records + dropped" 200003 $((jobs + drops))
"$QTRACE" info "$WORK/burst" > "$WORK/info"
check_eq "qtrace info: dropped" "dropped: $drops" \
    "$(grep '^dropped:' "$WORK/info")"
echo "NOTE $TEST_NAME: 64 KiB buffer, burst of 200000: $drops dropped"

# Four threads at once into a 64 KiB buffer, so that they race for room
# and overflow it: every record read back is one a thread echoed, whole,
# and records plus dropped counts add up to the echo.
QTRACE_TRACE_BUFFER=64k demo simple --trace "demo_*,file=$WORK/race" \
    --threads 4 --jobs 20000
echo_as_simple "$WORK/out" "$PID" | sort > "$WORK/want"
python3 "$(dirname "$0")/simpletrace-read.py" "$EV" "$WORK/race" \
    > "$WORK/got"
drops=$(awk -F'count=' '/^dropped / { n += $2 } END { print n + 0 }' \
    "$WORK/got")
grep -v '^dropped ' "$WORK/got" | sort > "$WORK/got.kept"
check_eq "racing threads: records + dropped" "$(wc -l < "$WORK/want")" \
    $(($(wc -l < "$WORK/got.kept") + drops))
check_eq "racing threads: every record is one that was traced" "" \
    "$(comm -13 "$WORK/want" "$WORK/got.kept" | head -3)"
finish
