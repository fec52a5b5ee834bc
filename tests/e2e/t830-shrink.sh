#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace truncated while qtrace dump reads it (the reader maps the whole
# file, so the next access beyond the new end raises SIGBUS) ends dump
# with one line naming the file and an offset beyond the new end, and
# status 1, not with a signal. Deterministic: dump writes into a pipe
# nobody reads, so it blocks long before the end of its output; the file
# is truncated once /proc shows it mapped, and only then is the pipe
# drained.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest demo "$ARCH"
cd "$WORK" || exit 1

"$QTRACE" record -e 'tb_trans,exec_insn,mem_access' -o t.qtr -- "$GUEST" \
    > /dev/null 2>&1
check_eq "record status" 0 "$?"
size=$(wc -c < t.qtr)
cut=65536
[ "$size" -gt $((cut * 4)) ] || fail "trace too small to cut: $size bytes"

# mapped PID: PID has t.qtr mapped (waits up to 10 s).
mapped() {
    i=0
    while [ $i -lt 100 ]; do
        grep -q "$WORK/t.qtr" "/proc/$1/maps" 2> /dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

{
    "$QTRACE" dump t.qtr 2> err &
    echo $! > pid
    wait $!
    echo $? > st
} | {
    while [ ! -s pid ]; do sleep 0.05; done
    if mapped "$(cat pid)"; then
        truncate -s "$cut" t.qtr
    else
        echo "dump never mapped t.qtr" > not-mapped
    fi
    cat > /dev/null
}
[ -e not-mapped ] && fail "$(cat not-mapped)"
check_eq "dump status" 1 "$(cat st)"
check_eq "one line on stderr" 1 "$(wc -l < err)"
check_grep "dump names the file and says it shrank" \
    '^qtrace dump: t\.qtr: the file shrank while being read \(at offset [0-9]+\)$' \
    err
at=$(sed -n 's/.*(at offset \([0-9]*\))$/\1/p' err)
if [ -n "$at" ] && [ "$at" -ge "$cut" ] && [ "$at" -lt "$size" ]; then
    pass "the offset $at lies between the new end $cut and the old $size"
else
    fail "offset '$at' not in [$cut, $size)"
fi
finish
