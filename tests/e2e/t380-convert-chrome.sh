#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `qtrace convert --to chrome` on the calls guest of ARCH: Python's json
# reads the file, and the timeline a viewer builds from it
# (timeline-check.py: B/E nesting per thread, times in order) holds the
# guest's call tree and call counts (calls.sh, from the guest's source),
# one thread per vCPU stream as qtrace info lists them, every system
# call as a slice named as qtrace dump names it, with dump's arguments
# and return value, and the lifecycle records as instants. Blocks are
# left out by default and come with -e, one instant per exec_tb record.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/calls.sh"
. "$(dirname "$0")/convert-lib.sh"
use_guest calls "$ARCH"
command -v python3 > /dev/null 2>&1 ||
    skip "python3 not installed (Debian package python3)"

T="$WORK/t.qtr"
convert_record "$T"
"$QTRACE" convert --to chrome "$T" "$WORK/t.json" 2> "$WORK/err"
check_eq "convert status" 0 "$?"
check_eq "convert messages" "" "$(cat "$WORK/err")"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/t.json"
check_eq "Python's json reads it" 0 "$?"
python3 "$E2E_DIR/timeline-check.py" chrome "$WORK/t.json" "$CALLS_FUNCS" \
    'syscall#0' > "$WORK/sum" 2>&1
check_eq "timeline-check status" 0 "$?"
check_summary chrome "$WORK/sum" "$T"
check_eq "first system call: dump's number, arguments and return" \
    "$(first_syscall_args "$T")" \
    "$(awk '$1 == "arg" && $2 == "syscall#0" { print $3 }' "$WORK/sum" |
       grep -E '^(num|a[1-6]|ret)=' | tr '\n' ' ' | sed 's/ $//')"

# The metadata says what the times are.
check_eq "otherData names the clock and the guest" \
    "guest instructions;$ARCH" \
    "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["otherData"]
print(d["clock"][:18] + ";" + d["arch"])' "$WORK/t.json")"

# -e '*': every exec_tb record an instant, its pc and function named.
"$QTRACE" convert -e '*' --to chrome "$T" "$WORK/all.json" 2> "$WORK/err"
check_eq "-e '*': status" 0 "$?"
python3 "$E2E_DIR/timeline-check.py" chrome "$WORK/all.json" \
    "$CALLS_FUNCS" 'exec_tb#0' > "$WORK/sum-all"
check_eq "-e '*': structure" ok "$(sed -n 1p "$WORK/sum-all")"
check_eq "-e '*': one instant per exec_tb record" \
    "exec_tb=$(info_count "$T" exec_tb)" \
    "$(grep '^instants ' "$WORK/sum-all" | tr ' ' '\n' | grep '^exec_tb=')"
first_tb=$("$QTRACE" dump -e exec_tb "$T" | head -1)
check_eq "-e '*': first exec_tb's pc, tb and function as dump has them" \
    "$(echo "$first_tb" | awk '{ print "pc=" $5, "tb=" $7, "func=" $9 }')" \
    "$(awk '$2 == "exec_tb#0" { print $3 }' "$WORK/sum-all" |
       tr '\n' ' ' | sed 's/ $//')"
check_eq "default: no exec_tb instants" "" \
    "$(grep '^instants ' "$WORK/sum" | tr ' ' '\n' | grep '^exec_tb=')"

# -e 'syscall*': system calls only, no calls.
"$QTRACE" convert -e 'syscall*' --to chrome "$T" "$WORK/sys.json"
python3 "$E2E_DIR/timeline-check.py" chrome "$WORK/sys.json" \
    "$CALLS_FUNCS" > "$WORK/sum-sys"
check_eq "-e 'syscall*': system calls, no function slices" \
    "ok|calls |syscalls $(expected_syscalls "$T")" \
    "$(sed -n '1p;/^calls /p;/^syscalls /p' "$WORK/sum-sys" | paste -sd'|')"
finish
