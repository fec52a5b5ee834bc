#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace record -Q passes options to QEMU: each value is split into words
# as a shell would, and words of several -Q follow each other. QEMU's -E
# sets the guest's environment, which the host's env program (run under
# qemu-ARCH, ARCH the host's) prints back. -Q also reaches QEMU's -strace,
# whose lines QEMU writes itself.
ARCH=$1
. "$(dirname "$0")/lib.sh"
need_qemu "$ARCH"
env_path=$(command -v env) || skip "no env program"

T="$WORK/t.qtr"
"$QTRACE" record -q -o "$T" -Q "-E 'QT_ONE=a b'" -Q -E -Q QT_TWO=2 \
    -- "$env_path" > "$WORK/out" 2> "$WORK/err"
check_eq "env under -Q -E: status" 0 "$?"
check_eq "quoted word kept whole" "QT_ONE=a b" \
    "$(grep '^QT_ONE=' "$WORK/out")"
check_eq "-Q -E -Q VALUE: one option" "QT_TWO=2" \
    "$(grep '^QT_TWO=' "$WORK/out")"

use_guest asm "$ARCH"
"$QTRACE" record -q -o "$T" --qemu-opt=-strace -- "$GUEST" \
    > "$WORK/out" 2> "$WORK/err"
check_eq "guest under -strace: exit status" "$(expect_get exit)" "$?"
check_grep "QEMU's strace line for exit" "exit(_group)?\\($(expect_get exit)\\)" \
    "$WORK/err"

# A value that cannot be split is misuse, found before QEMU runs.
rm -f "$T"
"$QTRACE" record -o "$T" -Q "-E 'unbalanced" -- "$GUEST" \
    > "$WORK/out" 2> "$WORK/err"
check_eq "unbalanced quote: status" 2 "$?"
check_grep "unbalanced quote: named" "^qtrace record: -Q -E 'unbalanced: " \
    "$WORK/err"
check_eq "unbalanced quote: no trace" no \
    "$([ -e "$T" ] && echo yes || echo no)"

finish
