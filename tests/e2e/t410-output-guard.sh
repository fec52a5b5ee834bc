#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Outputs never destroy what they should not: record -o and convert OUT
# refuse an existing file of another kind (a C source) unless --force,
# replace an existing trace or output of their own kind, and a failed
# conversion leaves an older OUT as it was and no temporary behind.
# Real QEMU, the asm guest of x86_64 (exit status 42 by construction).
. "$(dirname "$0")/lib.sh"
use_guest asm x86_64
use_calls=$GUESTS/calls-x86_64

SRC="$WORK/prog.c"
printf 'int main(void) { return 0; }\n' > "$SRC"
cp "$SRC" "$WORK/prog.c.orig"

"$QTRACE" record -e exec_tb -o "$SRC" -- "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "record -o C source: status" 1 "$?"
check_grep "record -o C source: says why" \
    "prog.c: exists and is not a qtrace trace" "$WORK/err"
if cmp -s "$SRC" "$WORK/prog.c.orig"; then
    pass "record -o C source: the file is unchanged"
else
    fail "record -o C source: the file was changed"
fi

T="$WORK/t.qtr"
"$QTRACE" record -e exec_tb -o "$T" -- "$GUEST" > /dev/null
check_eq "record a new trace: guest status" 42 "$?"
"$QTRACE" record -e syscall -o "$T" -- "$GUEST" > /dev/null
check_eq "record over a trace: guest status" 42 "$?"
check_eq "record over a trace: the new trace (its 1 syscall)" 1 \
    "$(info_count "$T" syscall)"
check_eq "record over a trace: no exec_tb of the old one" 0 \
    "$(info_count "$T" exec_tb)"

"$QTRACE" record --force -e syscall -o "$SRC" -- "$GUEST" > /dev/null
check_eq "record --force over C source: guest status" 42 "$?"
check_eq "record --force over C source: a trace now" 1 \
    "$(info_count "$SRC" syscall)"

# convert --to etrace: the same rules for its OUT file.
cp "$WORK/prog.c.orig" "$SRC"
"$QTRACE" convert --to etrace "$T" "$SRC" 2> "$WORK/err"
check_eq "convert OUT = C source: status" 1 "$?"
check_grep "convert OUT = C source: says why" \
    "prog.c: exists and is not an etrace file" "$WORK/err"
cmp -s "$SRC" "$WORK/prog.c.orig" &&
    pass "convert OUT = C source: the file is unchanged" ||
    fail "convert OUT = C source: the file was changed"
"$QTRACE" convert --to etrace "$T" "$WORK/t.etr"
check_eq "convert to a new etrace file: status" 0 "$?"
"$QTRACE" convert --to etrace "$T" "$WORK/t.etr"
check_eq "convert over an etrace file: status" 0 "$?"
"$QTRACE" convert --force --to etrace "$T" "$SRC"
check_eq "convert --force over C source: status" 0 "$?"
check_eq "convert --force over C source: an etrace file now" "etrace" \
    "$("$QTRACE" info "$SRC" | sed -n 's/^format: //p')"

# A pipe (like /dev/null) is fed, never replaced by a renamed file.
mkfifo "$WORK/pipe"
cat "$WORK/pipe" > "$WORK/from-pipe" &
reader=$!
"$QTRACE" convert --to etrace "$T" "$WORK/pipe"
check_eq "convert into a pipe: status" 0 "$?"
if [ -p "$WORK/pipe" ]; then
    pass "convert into a pipe: still a pipe"
    wait "$reader"
else
    fail "convert into a pipe: the pipe was replaced"
    kill "$reader" 2> /dev/null
fi
"$QTRACE" convert --to etrace "$T" "$WORK/direct.etr"
check_eq "convert into a pipe: the bytes of a file conversion" "" \
    "$(cmp "$WORK/direct.etr" "$WORK/from-pipe" 2>&1)"

# A failed conversion keeps an older uftrace directory whole.
if [ -x "$use_calls" ]; then
    "$QTRACE" record -e 'func_*,image_map' -o "$WORK/f.qtr" -- "$use_calls" \
        > /dev/null 2>&1
    "$QTRACE" convert --to uftrace "$WORK/f.qtr" "$WORK/u"
    check_eq "convert calls to uftrace: status" 0 "$?"
    ls "$WORK/u" > "$WORK/u.before"
    cksum "$WORK/u"/* > "$WORK/u.sums"
    "$QTRACE" convert --to uftrace "$WORK/f.qtr" "$WORK/u"
    check_eq "convert over a uftrace directory: status" 0 "$?"
    "$QTRACE" convert --to uftrace "$T" "$WORK/u" 2> "$WORK/err"
    check_eq "convert without calls over it: status" 1 "$?"
    check_eq "the older directory's files are all there, unchanged" "" \
        "$(cksum "$WORK/u"/* | diff - "$WORK/u.sums")"
fi
check_eq "no temporary left in the output directory" "" \
    "$(ls -A "$WORK" | grep '^\.')"
finish
