#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Plugin options that would destroy their own output are refused when
# QEMU loads the plugin, before anything is created: two outputs on one
# file (by name, by where a new file would be created, or one existing
# file under two names), and events=@ naming anything but a readable
# regular file (a directory reads as empty, so the defaults stayed;
# /dev/zero never ends; a FIFO would hold QEMU at load).
. "$(dirname "$0")/lib.sh"
use_guest asm x86_64
cd "$WORK" || exit 1

# refused WHAT OPTIONS REGEX FILE: QEMU fails at load with a line matching
# REGEX, and FILE was not created.
refused() {
    timeout 20 qemu-x86_64 -plugin "$QTRACE_PLUGIN,$2" "$GUEST" > out 2> err
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
    "@events.d: a directory, not read" e.qtr

# Every pair of file outputs, each under two names of one file that does
# not exist yet: refused, and not a single file or directory appears.
# (Sink outputs write into logs/, kept out of the listing.)
mkdir logs real d
ln -s real lnk
ln -s x.qtr dangling.qtr
listing() {
    find . -path ./logs -prune -o -print | sort
}
before=$(listing)
KEYS="out log uftrace etrace status"
names_refused=0
names_total=0
for k1 in $KEYS; do
    for k2 in $KEYS; do
        [ "$k1" \< "$k2" ] || continue
        for pair in "x.qtr ./x.qtr" "d/../x.qtr x.qtr" \
                    "lnk/x.qtr real/x.qtr" "dangling.qtr x.qtr"; do
            set -- $pair
            names_total=$((names_total + 1))
            timeout 20 qemu-x86_64 -plugin \
                "$QTRACE_PLUGIN,$k1=$1,$k2=$2" "$GUEST" \
                > logs/out 2> logs/err
            st=$?
            if [ "$st" -ne 0 ] && [ "$(grep -c '^qtrace: ' logs/err)" = 1 ] &&
               grep -Eq "^qtrace: ($k1=$1 and $k2=$2|$k2=$2 and $k1=$1): one file for two" \
                   logs/err; then
                names_refused=$((names_refused + 1))
            else
                echo "$k1=$1,$k2=$2: status $st: $(head -1 logs/err)"
            fi
            after=$(listing)
            if [ "$after" != "$before" ]; then
                fail "$k1=$1,$k2=$2: created $(echo "$after" |
                    grep -vxF "$before" | tr '\n' ' ')"
                rm -rf x.qtr real/x.qtr
            fi
        done
    done
done
check_eq "two names of one new file, refused with one line" \
    "$names_total" "$names_refused"
check_eq "no file left by any refusal" "$before" "$(listing)"

# The same pairs on an existing file under two names: it keeps its bytes.
echo keep > real/v.qtr
kept=0
n=0
for k1 in $KEYS; do
    for k2 in $KEYS; do
        [ "$k1" \< "$k2" ] || continue
        n=$((n + 1))
        timeout 20 qemu-x86_64 -plugin \
            "$QTRACE_PLUGIN,$k1=lnk/v.qtr,$k2=./real/../real/v.qtr" \
            "$GUEST" > logs/out 2> logs/err
        [ $? -ne 0 ] && [ "$(cat real/v.qtr)" = keep ] && kept=$((kept + 1))
    done
done
check_eq "an existing file under two names: refused, kept" "$n" "$kept"

# events=@ anything but a readable regular file: one line, no waiting.
mkfifo events.fifo
refused "events=@/dev/zero" "out=e.qtr,events=@/dev/zero" \
    "^qtrace: events=@/dev/zero: a device, not read$" e.qtr
refused "events=@ a FIFO (without a writer)" "out=e.qtr,events=@events.fifo" \
    "^qtrace: events=@events.fifo: a FIFO, not read$" e.qtr
refused "events=@ a file of /proc" "out=e.qtr,events=@/proc/self/status" \
    "^qtrace: events=@/proc/self/status: a file of /proc, not read$" e.qtr
# qtrace record checks -e @FILE itself first: it must not wait either.
for f in events.fifo /dev/zero; do
    timeout 10 "$QTRACE" record -e "@$f" -o r.qtr -- "$GUEST" \
        > out 2> err
    st=$?
    [ "$st" -eq 1 ] && pass "record -e @$f: status 1" ||
        fail "record -e @$f: status $st (124: it hung)"
    check_grep "record -e @$f: says why" "events=@$f: a (FIFO|device), not read" err
done
# Root reads any mode; a write-only sysfs file stays unreadable to it.
unreadable=events.noread
echo exec_tb > "$unreadable"
chmod 000 "$unreadable"
if cat "$unreadable" > /dev/null 2>&1; then
    unreadable=/sys/bus/pci/rescan
fi
if [ -e "$unreadable" ] && ! cat "$unreadable" > /dev/null 2>&1; then
    refused "events=@ an unreadable file" "out=e.qtr,events=@$unreadable" \
        "^qtrace: events=@$unreadable: Permission denied$" e.qtr
else
    echo "SKIP part of $TEST_NAME: no file unreadable to this user"
fi

# Distinct outputs still work.
qemu-x86_64 -plugin "$QTRACE_PLUGIN,out=a.qtr,log=a.log" "$GUEST" \
    > /dev/null 2>&1
check_eq "distinct out and log: both written" "yes yes" \
    "$([ -s a.qtr ] && echo yes) $([ -s a.log ] && echo yes)"
finish
