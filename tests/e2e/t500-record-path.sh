#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace record finds a PROGRAM named without '/' in PATH, as execvp does:
# the asm guest of the host's ARCH (exit status and block count known by
# construction), the host's own sh, whose $0 must read as typed ("sh",
# as the shell run natively prints it), a name found nowhere, and one
# found only in the current directory, which a shell would not run.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"

T="$WORK/t.qtr"
PATH="$GUESTS:$PATH" "$QTRACE" record -e exec_tb -o "$T" asm-"$ARCH" \
    > "$WORK/out" 2> "$WORK/err"
check_eq "guest found in PATH: exit status" "$(expect_get exit)" "$?"
blocks=$(expect_get blocks | tr ',' '\n' | awk -F: '{ n += $2 } END { print n }')
check_eq "guest found in PATH: exec_tb records" "$blocks" \
    "$(info_count "$T" exec_tb)"

# The guest's argv[0] is the name as typed, not the path found.
sh_path=$(command -v sh)
case "$sh_path" in
/*) ;;
*) skip "no sh in PATH" ;;
esac
native=$(sh -c 'echo "$0"')
"$QTRACE" record -q -o "$T" sh -c 'echo "$0"' > "$WORK/out" 2> "$WORK/err"
check_eq "sh found in PATH: status" 0 "$?"
check_eq "sh's \$0 as typed" "$native" "$(cat "$WORK/out")"

# A name found nowhere: one line, status 1, QEMU not run.
rm -f "$T"
PATH="$WORK" "$QTRACE" record -o "$T" qtrace-no-such-program \
    > "$WORK/out" 2> "$WORK/err"
check_eq "missing program: status" 1 "$?"
check_eq "missing program: message" \
    "qtrace record: qtrace-no-such-program: not found in PATH" \
    "$(cat "$WORK/err")"
check_eq "missing program: no trace" no \
    "$([ -e "$T" ] && echo yes || echo no)"

# A file of that name in the current directory is not run, but named.
cp "$GUEST" "$WORK/asm-here"
(cd "$WORK" && PATH=/nonexistent "$QTRACE" record -o "$T" asm-here) \
    > "$WORK/out" 2> "$WORK/err"
check_eq "program in the current directory only: status" 1 "$?"
check_eq "program in the current directory only: hint" \
    "qtrace record: asm-here: not found in PATH (for the file in the current directory, say ./asm-here)" \
    "$(cat "$WORK/err")"

finish
