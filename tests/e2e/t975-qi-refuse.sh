#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Libraries the plugin must refuse, as the qemu-instr layer and the init
# guard see them: a qemu-instr library without qi_init, a qi_init and a
# qtrace_instr_init that crash (SIGSEGV), a library with both APIs'
# entry points, a second qemu-instr library. Each refusal is one
# "qtrace:" line naming the library; QEMU exits with status 1 (a crash
# caught, not QEMU killed by it), the guest never runs: no trace file,
# and the library loaded before saw no block executed. Of a library with
# both APIs' entry points neither init runs.
ARCH=x86_64
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] && [ -n "${INSTR_TEST_LIBS:-}" ] ||
    skip "INSTR_EXAMPLES or INSTR_TEST_LIBS not set"
COUNTER="$INSTR_EXAMPLES/libqtrace-instr-counter.so"
EXAMPLE="$INSTR_EXAMPLES/libqtrace-qi-proposal-example.so"
L=$INSTR_TEST_LIBS

# refused NAME WHY_REGEX PLUGIN_OPTIONS
refused() {
    rm -f "$WORK/t.qtr" "$WORK/blocks"
    "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,instr=$COUNTER,instr-arg=out=$WORK/blocks,$3" \
        "$GUEST" > "$WORK/out" 2> "$WORK/err"
    check_eq "$1: QEMU exits with status 1" 1 "$?"
    check_eq "$1: one qtrace line" 1 "$(grep -c '^qtrace:' "$WORK/err")"
    check_grep "$1: the line says why" "^qtrace: $2\$" "$WORK/err"
    check_eq "$1: no trace written" no \
        "$([ -e "$WORK/t.qtr" ] && echo yes || echo no)"
    check_eq "$1: no block ran" 0 \
        "$(awk '$1 == "blocks" { print $2 }' "$WORK/blocks" 2>/dev/null)"
}

refused "qemu-instr library without qi_init" \
    "instr=$L/libinstr-qi-no-init.so: no qi_init \(a qemu-instr library must export it\)" \
    "instr=$L/libinstr-qi-no-init.so"
refused "qi_init crashes" \
    "instr=$L/libinstr-qi-crash.so: qi_init crashed \(SIGSEGV\)" \
    "instr=$L/libinstr-qi-crash.so"
refused "qtrace_instr_init crashes" \
    "instr=$L/libinstr-crash.so: qtrace_instr_init crashed \(SIGSEGV\)" \
    "instr=$L/libinstr-crash.so"
refused "both APIs" \
    "instr=$L/libinstr-qi-both.so: exports both qtrace_instr_init and qi_init \(a library speaks one API\)" \
    "instr=$L/libinstr-qi-both.so"
check_eq "both APIs: no init ran" 0 "$(grep -c 'init called' "$WORK/err")"
refused "a second qemu-instr library" \
    "instr=$L/libinstr-qi-switch.so: a second qemu-instr library .*" \
    "instr=$EXAMPLE,instr=$L/libinstr-qi-switch.so"
check_grep "a second qemu-instr library: the first was finished" \
    '^fini!$' "$WORK/err"
finish
