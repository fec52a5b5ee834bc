#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The etrace options of the plugin, with the x86_64 assembly guest: each
# bad value stops QEMU at load with one line naming it; etrace-flags=none
# writes the INFO and ARCH records only; etrace-flags=cpu writes the vCPU
# start and the guest's one system call, exit_group(42), as NOTE records;
# ';' separates flags inside -plugin; etrace= alone writes no native trace.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/etrace-lib.sh"
use_guest asm x86_64

# bad_option OPTION MESSAGE: QEMU refuses OPTION with qtrace's MESSAGE.
bad_option() {
    "$QTRACE" record -q -o "$WORK/bad.qtr" -O "$1" -- "$GUEST" \
        > /dev/null 2> "$WORK/bad.err"
    st=$?
    if [ "$st" -ne 0 ] && [ "$st" -ne 42 ]; then
        pass "$1: refused (status $st)"
    else
        fail "$1: status $st"
    fi
    check_grep "$1: message" "^qtrace: $2\$" "$WORK/bad.err"
    check_eq "$1: qtrace lines" 1 "$(grep -c '^qtrace' "$WORK/bad.err")"
}

KNOWN="known: none, exec, disas, mem, cpu, gpio, all"
bad_option "etrace-flags=exec,bogus" \
    "etrace-flags=exec,bogus: unknown flag 'bogus' \\($KNOWN\\)"
bad_option "etrace-flags=" "etrace-flags=: empty list \\($KNOWN\\)"
bad_option "etrace-peer-lost=maybe" \
    "etrace-peer-lost=maybe: expected stop or continue"
bad_option "etrace-stall=0" "etrace-stall=0: expected seconds from 1 to 86400"
bad_option "etrace-wait=x" "etrace-wait=x: expected seconds from 0 to 86400"
bad_option "etrace=$WORK/no/such/dir/t.etr" \
    "etrace=$WORK/no/such/dir/t.etr: No such file or directory"
long=$(printf 'x%.0s' $(seq 1 120))
bad_option "etrace=unix:$WORK/$long" \
    "etrace=unix:$WORK/$long: socket path longer than 107 bytes"

# none: the two records every etrace stream starts with, nothing else.
"$QTRACE" record -o "$WORK/n.qtr" -O "etrace=$WORK/none.etr" \
    -O etrace-flags=none -- "$GUEST" > /dev/null 2>&1
check_eq "none: exit status" 42 "$?"
check_eq "none: records" "INFO ARCH" \
    "$(peer decode "$WORK/none.etr" | cut -d' ' -f1 | tr '\n' ' ' |
       sed 's/ $//')"

# cpu, through QEMU directly: ';' between flags; no out= file.
cd "$WORK" || exit 1
qemu-x86_64 -plugin "$QTRACE_PLUGIN,etrace=cpu.etr,etrace-flags=none;cpu" \
    -- "$GUEST" > /dev/null 2> "$WORK/cpu.err"
check_eq "cpu: exit status" 42 "$?"
check_eq "cpu: no native trace written" no \
    "$(test -e "$WORK/qtrace.qtr" && echo yes || echo no)"
peer decode cpu.etr > cpu.peer
check_eq "cpu: NOTE records" 2 "$(grep -c '^N ' cpu.peer)"
check_grep "cpu: vCPU start" "^N 0 0 vcpu 0 start$" cpu.peer
check_grep "cpu: exit_group(42), time = instructions run" \
    "^N 0 $(expect_get insns) syscall exit_group\\(0x2a, " cpu.peer
finish
