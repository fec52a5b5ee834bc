#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A guest of ARCH that forks: the run ends (the child must not wait for
# the parent's writer thread), the guest's output and status are intact,
# and the parent's trace is complete. The child is not traced.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest forks "$ARCH"

T="$WORK/t.qtr"
# Small buffers make the child need the writer soon if it were traced.
"$QTRACE" record -e 'exec_tb' -O chunk=64k -O buffer=128k -o "$T" \
    -- "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "guest exit status" 0 "$?"
check_grep "guest output" '^forks: child 7$' "$WORK/out"
"$QTRACE" info "$T" > "$WORK/info"
check_grep "parent trace complete" '^end: *complete' "$WORK/info"
check_eq "parent stream only" 1 "$(sed -n 's/^streams: *//p' "$WORK/info")"
finish
