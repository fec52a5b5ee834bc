#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace against uftrace's own recording: tests/guests/calls.c built for
# the host with gcc -pg and recorded natively by `uftrace record`, and
# the calls guests of the same (host) ARCH, static and dynamic PIE, run
# under QEMU with qtrace. The call trees of the guest's own functions
# (names and nesting, not times) and their call counts must be the same.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/calls.sh"
use_guest calls "$ARCH"
STATIC=$GUEST
use_guest calls-dyn "$ARCH"
DYNAMIC=$GUEST
command -v uftrace > /dev/null 2>&1 ||
    skip "uftrace not installed (Debian package uftrace)"
command -v gcc > /dev/null 2>&1 || skip "no gcc for the native build"
SRC="$E2E_DIR/../guests/calls.c"

# The guest's own build flags (tests/guests/meson.build), plus -pg.
gcc -pg -O1 -g -fno-optimize-sibling-calls -pthread -o "$WORK/calls-pg" \
    "$SRC" > "$WORK/gcc.out" 2>&1 ||
    skip "gcc -pg failed: $(head -1 "$WORK/gcc.out")"
(cd "$WORK" && uftrace record -d "$WORK/native" "$WORK/calls-pg") \
    > "$WORK/native.out" 2> "$WORK/native.err"
check_eq "uftrace record status" 0 "$?"
check_eq "native guest output" "calls: ok" "$(cat "$WORK/native.out")"
uftrace replay -d "$WORK/native" > "$WORK/native.replay" 2>&1
check_eq "uftrace replay status" 0 "$?"
uftrace report -d "$WORK/native" > "$WORK/native.report" 2>&1
check_eq "uftrace report status" 0 "$?"
calls_tree "$WORK/native.replay" > "$WORK/native.tree"
# The native recording itself must show the tree the source gives.
check_tree "native uftrace" "$WORK/native.replay"
check_eq "native report: functions left by the longjmp are not listed" "" \
    "$(awk '$NF == "jump_inner" || $NF == "jump_middle"' "$WORK/native.report")"

for kind in static dynamic; do
    if [ "$kind" = static ]; then prog=$STATIC; else prog=$DYNAMIC; fi
    "$QTRACE" record -e 'func_*,image_map,vcpu_*' -o "$WORK/$kind.qtr" \
        -- "$prog" > "$WORK/$kind.out" 2>&1
    check_eq "$kind: guest status" 0 "$?"
    "$QTRACE" replay "$WORK/$kind.qtr" > "$WORK/$kind.replay" 2>&1
    check_eq "$kind: qtrace replay status" 0 "$?"
    calls_tree "$WORK/$kind.replay" > "$WORK/$kind.tree"
    if cmp -s "$WORK/native.tree" "$WORK/$kind.tree"; then
        pass "$kind: qtrace's call tree is uftrace's native one"
    else
        fail "$kind: call trees differ (native, then qtrace):"
        sed 's/^/    /' "$WORK/native.tree" "$WORK/$kind.tree"
    fi
    # jump_middle and jump_inner never return (the longjmp leaves them):
    # uftrace's recorder sees no exit and its report leaves them out,
    # where qtrace saw them unwound. The other counts must agree.
    "$QTRACE" report --functions "$WORK/$kind.qtr" > "$WORK/$kind.report"
    check_eq "$kind: call counts are uftrace's native ones" \
        "$(calls_counts "$WORK/native.report")" \
        "$(calls_counts "$WORK/$kind.report" |
           sed 's/ jump_inner=1 jump_middle=1//')"
done
finish
