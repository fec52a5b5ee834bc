#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backend=simple: the plugin's events in a simpletrace file, read by the
# independent reader written from the format (simpletrace-read.py) and
# by qtrace dump, compared record for record with qtrace dump of the
# native trace of the same run, and with the syscalls guest's
# construction. Every record carries QEMU's pid; the END totals say how
# many records the backends took and that none was dropped, even with
# the smallest buffer the backend allows.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/backends-lib.sh"
use_guest syscalls "$ARCH"
syscall_numbers
command -v python3 > /dev/null || skip "python3 not installed"

# 64 KiB, the simple backend's smallest ring: thousands of records must
# pass through it without loss.
QTRACE_TRACE_BUFFER=64k run_plugin \
    "out=t.qtr,events=exec_tb;syscall*,backend=simple,backend-file=t.st,status=status" \
    "$GUEST"
check_eq "guest exit status" 3 "$RC"
check_eq "nothing on stderr" "" "$(cat "$WORK/err")"
python3 "$(dirname "$0")/simpletrace-read.py" "$TRACE_EVENTS" \
    "$WORK/t.st" > "$WORK/st" || fail "simpletrace-read.py failed"
check_eq "no dropped record in the file" 0 "$(grep -c '^dropped ' "$WORK/st")"
check_eq "every record has QEMU's pid" "$(wc -l < "$WORK/st")" \
    "$(grep -c "^[a-z_]* pid=$QEMU_PID " "$WORK/st")"

# The native records in the reader's notation: "name pid=PID arg=0xHEX",
# a byte array (tb_trans's code) as its length.
"$QTRACE" dump "$WORK/t.qtr" | cut -d' ' -f3- | sed 's/ | .*//' |
    python3 -c '
import sys
pid = sys.argv[1]
def h(v):
    return "0x%x" % (int(v, 0) % (1 << 64))
for line in sys.stdin:
    w = line.split()
    name, a = w[0], w[1:]
    if name == "tb_trans":
        args = [("pc", a[1]), ("tb", a[3]), ("size", a[5]),
                ("n_insns", a[7]), ("code", a[5])]
    elif name == "exec_tb":
        args = [("pc", a[1]), ("tb", a[3])]
    elif name == "syscall":
        args = [("num", a[1])] + [("a%d" % i, a[2 + i]) for i in range(1, 7)]
    elif name == "syscall_ret":
        args = [("num", a[1]), ("ret", a[3])]
    else:
        args = [("unexpected", "0")]
    print(" ".join([name, "pid=" + pid] + ["%s=%s" % (k, h(v)) for k, v in args]))
' "$QEMU_PID" > "$WORK/native"
check_same "simple records = native records" "$WORK/native" "$WORK/st"
check_eq "getpid calls (construction)" 7 \
    "$(grep -c "^syscall pid=$QEMU_PID num=$(printf '0x%x' $GETPID) " "$WORK/st")"
check_eq "getppid calls (construction)" 3 \
    "$(grep -c "^syscall pid=$QEMU_PID num=$(printf '0x%x' $GETPPID) " "$WORK/st")"

# qtrace dump reads the same file the same way.
"$QTRACE" dump -t "$TRACE_EVENTS" "$WORK/t.st" |
    sed -E 's/^([a-z_]+) [0-9]+ /\1 /' > "$WORK/dump-st"
check_same "qtrace dump of the simple file" "$WORK/st" "$WORK/dump-st"

check_grep "END: records the backends took" \
    "^backend_records=$(wc -l < "$WORK/st")\$" "$WORK/status"
check_grep "END: none dropped" "^backend_simple_dropped=0\$" "$WORK/status"

# Default file: trace-PID in the working directory, as QEMU's.
run_plugin "out=t.qtr,events=syscall,backend=simple" "$GUEST"
if [ -f "$WORK/trace-$QEMU_PID" ]; then
    pass "default file trace-$QEMU_PID"
else
    fail "no trace-$QEMU_PID in $(ls "$WORK" | tr '\n' ' ')"
fi
finish
