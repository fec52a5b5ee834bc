#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A misspelt event name in record -e, dump -e or list -e is misuse (status
# 2) that names the closest event of the catalog, found by record before
# QEMU runs (no trace written, the guest silent). The suggestion is the
# name of trace-events one letter away; a word far from every name gets
# none.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"

T="$WORK/t.qtr"
"$QTRACE" record -e exec_tb,mem_acess -o "$T" -- "$GUEST" \
    > "$WORK/out" 2> "$WORK/err"
check_eq "record -e typo: status" 2 "$?"
check_eq "record -e typo: message" \
    "qtrace record: -e mem_acess: no event matches; did you mean 'mem_access'?" \
    "$(head -1 "$WORK/err")"
check_eq "record -e typo: help pointer" "try 'qtrace record --help'" \
    "$(sed -n 2p "$WORK/err")"
check_eq "record -e typo: QEMU not run" no \
    "$([ -e "$T" ] && echo yes || echo no)"

printf 'exec_tb\n# a comment\n-vcpu_exti\n' > "$WORK/events"
"$QTRACE" record -e @"$WORK/events" -o "$T" -- "$GUEST" \
    > "$WORK/out" 2> "$WORK/err"
check_eq "record -e @FILE typo: status" 2 "$?"
check_eq "record -e @FILE typo: message" \
    "qtrace record: -e @$WORK/events: line 3: vcpu_exti: no event matches; did you mean 'vcpu_exit'?" \
    "$(head -1 "$WORK/err")"

"$QTRACE" record -q -e exec_tb -o "$T" -- "$GUEST" > /dev/null 2>&1
"$QTRACE" dump -e 'exec_tbb' "$T" > "$WORK/out" 2> "$WORK/err"
check_eq "dump -e typo: status" 2 "$?"
check_eq "dump -e typo: message" \
    "qtrace dump: -e exec_tbb: no event matches; did you mean 'exec_tb'?" \
    "$(head -1 "$WORK/err")"
check_eq "dump -e typo: stdout empty" 0 "$(wc -c < "$WORK/out")"

"$QTRACE" list -e 'zzzzzz' > "$WORK/out" 2> "$WORK/err"
check_eq "list -e far word: status" 2 "$?"
check_eq "list -e far word: no suggestion" \
    "qtrace list: -e zzzzzz: no event matches" "$(head -1 "$WORK/err")"
finish
