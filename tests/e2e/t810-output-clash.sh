#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Plugin options that would destroy their own output are refused when
# QEMU loads the plugin, before anything is created: two outputs on one
# file (by name, or one existing file under two names), and events=@
# naming a directory (it reads as empty, so the defaults stayed).
. "$(dirname "$0")/lib.sh"
use_guest asm x86_64
cd "$WORK" || exit 1

# refused WHAT OPTIONS REGEX FILE: QEMU fails at load with a line matching
# REGEX, and FILE was not created.
refused() {
    qemu-x86_64 -plugin "$QTRACE_PLUGIN,$2" "$GUEST" > out 2> err
    st=$?
    [ "$st" -ne 0 ] && pass "$1: refused (status $st)" ||
        fail "$1: accepted (status 0)"
    check_grep "$1: says why" "$3" err
    [ -e "$4" ] && fail "$1: $4 was created" || pass "$1: nothing created"
}

refused "out and log on one file" "out=t.qtr,log=t.qtr" \
    "out=t.qtr and log=t.qtr: one file for two outputs" t.qtr
refused "out and etrace on one file" "out=t.qtr,etrace=t.qtr" \
    "out=t.qtr and etrace=t.qtr: one file for two outputs" t.qtr
refused "out and uftrace on one path" "out=v,uftrace=v" \
    "out=v and uftrace=v: one file for two outputs" v
: > old.qtr
ln -s old.qtr alias.qtr
refused "one existing file under two names" "out=old.qtr,log=alias.qtr" \
    "out=old.qtr and log=alias.qtr: one file for two outputs" nothing
[ -s old.qtr ] && fail "the existing file was written" ||
    pass "the existing file is untouched"
mkdir events.d
refused "events=@ a directory" "out=e.qtr,events=@events.d" \
    "@events.d: not a regular file" e.qtr

# Distinct outputs still work.
qemu-x86_64 -plugin "$QTRACE_PLUGIN,out=a.qtr,log=a.log" "$GUEST" \
    > /dev/null 2>&1
check_eq "distinct out and log: both written" "yes yes" \
    "$([ -s a.qtr ] && echo yes) $([ -s a.log ] && echo yes)"
finish
