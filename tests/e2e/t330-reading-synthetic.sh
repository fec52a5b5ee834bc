#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The reading side on a trace written by hand (tests/tools/mktrace): the
# calls-dyn PIE of ARCH placed by an image_map record at a base of the
# test's choosing, a second image whose file is missing (one warning,
# addresses in hex), and unbalanced calls: an exit that skips three
# frames, an exit of nothing, a stream that ends inside two calls. Every
# duration and count below follows from the records. Also: misuse of the
# new commands.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls-dyn "$ARCH"
[ -x "$MKTRACE" ] || skip "mktrace not built"
command -v nm > /dev/null 2>&1 || skip "nm not installed (binutils)"
CATALOG="$(dirname "$0")/../../trace-events"

# addr NAME: NAME's run-time address with the PIE loaded at BASE.
BASE=0x7f0000000000
addr() {
    v=$(nm "$GUEST" | awk -v n="$1" '$3 == n { print $1; exit }')
    [ -n "$v" ] || skip "nm finds no $1 in $GUEST"
    printf '0x%x' $((BASE + 0x$v))
}
MISSING="$WORK/missing.so"

cat > "$WORK/desc" <<DESC
meta format=1
meta arch=$ARCH
meta word_bits=64
meta mode=user
meta time=insns
rec 0 1 0 image_map start=$BASE end=$((BASE + 0x1000)) offset=0 path=$GUEST
rec 0 1 0 image_map start=0x10000 end=0x20000 offset=0 path=$MISSING
rec 0 1 0 image_map start=0x30000 end=0x31000 offset=0 path=$MISSING
rec 0 1 10 func_entry pc=$(addr main) depth=1
rec 0 1 12 func_entry pc=$(addr fact) depth=2
rec 0 1 15 func_entry pc=$(addr fact) depth=3
rec 0 1 18 func_exit pc=$(addr fact) depth=3
rec 0 1 20 func_entry pc=$(addr apply) depth=3
rec 0 1 22 func_entry pc=0x10040 depth=4
rec 0 1 30 func_exit pc=$(addr main) depth=1 kind=1
rec 0 1 31 func_exit pc=$(addr twice) depth=1
rec 1 2 5 func_entry pc=$(addr worker) depth=1
rec 1 2 9 func_entry pc=$(addr work_item) depth=2
rec 1 2 40 vcpu_exit vcpu=1
DESC
T="$WORK/t.qtr"
"$MKTRACE" "$CATALOG" "$T" < "$WORK/desc"
check_eq "mktrace status" 0 "$?"

"$QTRACE" replay "$T" > "$WORK/replay" 2> "$WORK/replay.err"
check_eq "replay status" 0 "$?"
cat > "$WORK/replay.expect" <<'EXPECT'
#    INSNS     TID     FUNCTION
           [     1] | main() {
           [     1] |   fact() {
         3 [     1] |     fact();
           [     1] |     apply() {
         8 [     1] |       0x10040();
        10 [     1] |     } /* apply */
        18 [     1] |   } /* fact */
        20 [     1] | } /* main */
           [     2] | worker() {
        31 [     2] |   work_item();
        35 [     2] | } /* worker */
EXPECT
if cmp -s "$WORK/replay.expect" "$WORK/replay"; then
    pass "replay of unbalanced calls"
else
    fail "replay differs from the records (expected, got):"
    diff "$WORK/replay.expect" "$WORK/replay" | sed 's/^/    /'
fi
check_eq "replay: one warning for the missing file" \
    "qtrace replay: $MISSING: No such file or directory (addresses shown in hex)" \
    "$(cat "$WORK/replay.err")"

"$QTRACE" report --functions "$T" > "$WORK/report" 2> /dev/null
check_eq "report status" 0 "$?"
cat > "$WORK/report.expect" <<'EXPECT'
functions: 6, calls: 7 (times in guest instructions)
       TOTAL         SELF      CALLS  FUNCTION
          35            4          1  worker
          31           31          1  work_item
          20            2          1  main
          18            8          2  fact
          10            2          1  apply
           8            8          1  0x10040
EXPECT
if cmp -s "$WORK/report.expect" "$WORK/report"; then
    pass "report --functions of unbalanced calls"
else
    fail "report differs from the records (expected, got):"
    diff "$WORK/report.expect" "$WORK/report" | sed 's/^/    /'
fi

"$QTRACE" dump -e 'func_entry' "$T" | awk '{ print $NF }' > "$WORK/names"
check_eq "dump names" "main fact fact apply 0x10040 worker work_item" \
    "$(tr '\n' ' ' < "$WORK/names" | sed 's/ $//')"

if command -v uftrace > /dev/null 2>&1; then
    "$QTRACE" convert --to uftrace "$T" "$WORK/u" 2> /dev/null
    check_eq "convert status" 0 "$?"
    uftrace replay -d "$WORK/u" > "$WORK/u.replay" 2>&1
    check_eq "uftrace replay status" 0 "$?"
    check_eq "uftrace replay: the records' tree" \
        "1 0 main|1 1 fact|1 2 fact|1 2 apply|2 0 worker|2 1 work_item" \
        "$(awk -v names="main fact apply worker work_item" \
               -f "$(dirname "$0")/calltree.awk" "$WORK/u.replay" |
           sort -s -k1,1 | tr '\n' '|' | sed 's/|$//')"
else
    echo "(uftrace not installed: conversion not checked)"
fi

# Misuse: status 2 and a pointer to the help; a missing trace: 1.
"$QTRACE" replay > /dev/null 2> "$WORK/err"
check_eq "replay without FILE: status" 2 "$?"
check_grep "replay without FILE: help pointer" \
    "^try 'qtrace replay --help'\$" "$WORK/err"
"$QTRACE" replay --depth=0 "$T" > /dev/null 2> "$WORK/err"
check_eq "replay --depth=0: status" 2 "$?"
check_grep "replay --depth=0: message" \
    "^qtrace replay: --depth=0: expected a number from 1\$" "$WORK/err"
"$QTRACE" replay "$WORK/absent.qtr" > /dev/null 2> "$WORK/err"
check_eq "replay of a missing trace: status" 1 "$?"
check_grep "replay of a missing trace: message" \
    "^qtrace replay: $WORK/absent.qtr: No such file or directory\$" \
    "$WORK/err"
"$QTRACE" convert --to nothing "$T" "$WORK/x" > /dev/null 2> "$WORK/err"
check_eq "convert --to nothing: status" 2 "$?"
"$QTRACE" report --bogus "$T" > /dev/null 2> "$WORK/err"
check_eq "report --bogus: status" 2 "$?"
finish
