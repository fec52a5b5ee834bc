#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Instrumentation libraries the plugin must refuse: missing file, no
# API version, a newer API major, no qtrace_instr_init, an init that
# fails, an instr-arg with no instr= before it. Each refusal is one
# "qtrace:" line naming the library, QEMU fails, and the guest never
# runs: no trace file, and a library loaded before the refused one saw
# no block executed.
ARCH=x86_64
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] && [ -n "${INSTR_TEST_LIBS:-}" ] ||
    skip "INSTR_EXAMPLES or INSTR_TEST_LIBS not set"
COUNTER="$INSTR_EXAMPLES/libqtrace-instr-counter.so"
NULL_LIB="$INSTR_EXAMPLES/libqtrace-instr-null.so"

# refused NAME WHY_REGEX PLUGIN_OPTIONS
refused() {
    rm -f "$WORK/t.qtr" "$WORK/blocks"
    "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,instr=$COUNTER,instr-arg=out=$WORK/blocks,$3" \
        "$GUEST" > "$WORK/out" 2> "$WORK/err"
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne "$(expect_get exit)" ]
    check_eq "$1: QEMU fails" 0 "$?"
    check_eq "$1: one qtrace line" 1 "$(grep -c '^qtrace:' "$WORK/err")"
    check_grep "$1: the line says why" "^qtrace: $2" "$WORK/err"
    check_eq "$1: no trace written" no "$([ -e "$WORK/t.qtr" ] && echo yes || echo no)"
    # The counter, loaded first, was finished without any execution.
    check_eq "$1: no block ran" 0 \
        "$(awk '$1 == "blocks" { print $2 }' "$WORK/blocks" 2>/dev/null)"
}

refused "missing file" "instr=$WORK/none.so: .*No such file" \
    "instr=$WORK/none.so"
refused "newer major" \
    "instr=$INSTR_TEST_LIBS/libinstr-bad-major.so: built for instrumentation API 2\.0" \
    "instr=$INSTR_TEST_LIBS/libinstr-bad-major.so"
check_eq "newer major: its init never ran" 0 \
    "$(grep -c 'init called' "$WORK/err")"
refused "no init" "instr=$INSTR_TEST_LIBS/libinstr-no-init.so: no qtrace_instr_init" \
    "instr=$INSTR_TEST_LIBS/libinstr-no-init.so"
refused "no API version" "instr=$QTRACE_PLUGIN: no qtrace_instr_api_version" \
    "instr=$QTRACE_PLUGIN"
refused "init fails" "instr=$NULL_LIB: qtrace_instr_init failed .1.: asked to fail" \
    "instr=$NULL_LIB,instr-arg=fail"

"qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,instr-arg=x" "$GUEST" \
    > "$WORK/out" 2> "$WORK/err"
check_eq "instr-arg without instr=: QEMU fails" 1 "$?"
check_grep "instr-arg without instr=: said" "^qtrace: instr-arg=x: no instr=" \
    "$WORK/err"
finish
