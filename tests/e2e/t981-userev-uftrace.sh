#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A library's own events in uftrace, on the calls guest of ARCH: the
# sampler example writes sampler:syscall at each system call the guest's
# threads make, while the plugin records the same calls as its syscall
# events. `qtrace convert --to uftrace` turns the library's records into
# uftrace user events (events.txt): uftrace's own dump and replay must
# show one per system call, on the task that made it, by name; and so
# must the plugin's uftrace= sink of the same run.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
command -v uftrace > /dev/null 2>&1 ||
    skip "uftrace not installed (Debian package uftrace)"
SAMPLER="$INSTR_EXAMPLES/libqtrace-instr-sampler.so"

# every= larger than the guest's blocks: system calls only.
"$QTRACE" record -q -e 'func_*,image_map,syscall,user_event' \
    -O "uftrace=$WORK/sink" -o "$WORK/t.qtr" --instr "$SAMPLER" --instr-arg every=1000000000 \
    -- "$GUEST" > /dev/null 2>&1
check_eq "guest exit status" 0 "$?"
SYSCALLS=$(info_count "$WORK/t.qtr" syscall)
[ "$SYSCALLS" -gt 0 ] || fail "no syscall records"
check_eq "one sampler:syscall per syscall record" "$SYSCALLS" \
    "$(info_count "$WORK/t.qtr" sampler:syscall)"
# Per stream, as "stream count" lines: the plugin's view of who called.
"$QTRACE" dump "$WORK/t.qtr" | awk '$3 == "syscall" { n[$1]++ }
    END { for (v in n) print v, n[v] }' | sort > "$WORK/per-vcpu"

"$QTRACE" convert --to uftrace "$WORK/t.qtr" "$WORK/u" 2> "$WORK/err"
check_eq "convert status" 0 "$?"
check_grep "convert says what uftrace cannot show" \
    "^qtrace convert: $SYSCALLS library events as uftrace events, by name only" \
    "$WORK/err"
check_grep "events.txt names the event" \
    "^EVENT: [0-9]+ sampler:syscall\$" "$WORK/u/events.txt"
uftrace dump -d "$WORK/u" > "$WORK/udump" 2>&1 ||
    fail "uftrace dump failed: $(head -3 "$WORK/udump")"
check_eq "uftrace dump: one event per system call" "$SYSCALLS" \
    "$(grep -c '\[event\] sampler:syscall' "$WORK/udump")"
uftrace replay -d "$WORK/u" > "$WORK/replay" 2>&1 ||
    fail "uftrace replay failed: $(head -3 "$WORK/replay")"
check_eq "uftrace replay: one comment per system call" "$SYSCALLS" \
    "$(grep -c '/\* sampler:syscall \*/' "$WORK/replay")"
# uftrace's tasks are qtrace's streams; the vCPU of a stream's records is
# what dump shows, so compare the number of tasks with events.
check_eq "uftrace: as many tasks with events as vCPUs with syscalls" \
    "$(wc -l < "$WORK/per-vcpu")" \
    "$(awk '/\[event\] sampler:syscall/ { t[$2] = 1 }
        END { n = 0; for (k in t) n++; print n }' "$WORK/udump")"
uftrace dump -d "$WORK/sink" > "$WORK/sdump" 2>&1 ||
    fail "uftrace dump of the sink failed: $(head -3 "$WORK/sdump")"
check_eq "uftrace= sink: one event per system call" "$SYSCALLS" \
    "$(grep -c '\[event\] sampler:syscall' "$WORK/sdump")"
finish
