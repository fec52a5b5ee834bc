#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The threaded guest of ARCH (main thread plus 4 POSIX threads) gives one
# stream per vCPU: 5 vcpu_init records in 5 distinct streams, each stream
# with its own executed blocks, and the trace ends complete.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest threads "$ARCH"

T="$WORK/t.qtr"
"$QTRACE" record -e 'vcpu_*,tb_trans,exec_tb' -o "$T" -- "$GUEST" \
    > "$WORK/out" 2>&1
check_eq "guest exit status" 0 "$?"
check_eq "vcpu_init records" 5 "$(info_count "$T" vcpu_init)"
"$QTRACE" info --per-cpu "$T" > "$WORK/info"
check_grep "trace complete" '^end: *complete' "$WORK/info"
streams=$(grep -E '^vcpu [0-9]+ stream [0-9]+:' "$WORK/info" | grep -c 'exec_tb=')
check_eq "vCPU streams that executed blocks" 5 "$streams"
finish
