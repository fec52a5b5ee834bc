#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ring=: memory stays bounded however long the guest runs. The busy guest
# (tests/guests/busy.c: N rounds of a 1000-iteration loop, a block or
# more each) runs 1000 rounds, then 300000 (over a gigabyte of staged
# blocks), with a 1M ring of 256k chunks and at most 1M of chunks on
# their way to it (buffer=): QEMU's peak resident size (getrusage of
# the child) may grow by at most 16 MiB between the two,
# the ring file holds at most the ring and a chunk of blocks (4 bytes
# each in memory), and what it dropped and holds covers the loop.
# Usage: t998-ring-memory.sh ARCH.
ARCH=${1:?usage: t998-ring-memory.sh ARCH}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/ring-lib.sh
. "$(dirname "$0")/ring-lib.sh"

use_guest busy "$ARCH"
command -v python3 > /dev/null || skip "no python3 (Debian package python3)"
ROUNDS=300000
RING=ring=1M,chunk=256k,buffer=1M

# peak_kb ROUNDS TAG: QEMU's peak RSS in KiB, the trace in $WORK/TAG.qtr.
peak_kb() {
    python3 -c '
import resource, subprocess, sys
st = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if st == 0
      else -1)' "qemu-$ARCH" -plugin \
        "$QTRACE_PLUGIN,out=$WORK/$2.qtr,events=exec_tb,$RING" \
        "$GUEST" "$1"
}

short=$(peak_kb 1000 short)
long=$(peak_kb "$ROUNDS" long)
if [ "$short" -gt 0 ] && [ "$long" -gt 0 ] &&
    [ "$long" -le $((short + 16384)) ]; then
    pass "peak RSS: $short KiB for 1000 rounds, $long KiB for $ROUNDS"
else
    fail "peak RSS: $short KiB for 1000 rounds, $long KiB for $ROUNDS"
fi
check_reads "long run" "$WORK/long.qtr"
blocks=$(info_count "$WORK/long.qtr" exec_tb)
dropped=$(end_key "$WORK/long.qtr" ring_dropped)
if [ "$blocks" -gt 0 ] && [ "$blocks" -le $(((1024 + 256) * 1024 / 4)) ]; then
    pass "the ring file holds $blocks blocks: at most 1M + a chunk of them"
else
    fail "the ring file holds $blocks blocks"
fi
if [ $((${dropped:-0} + blocks)) -ge $((ROUNDS * 1000)) ]; then
    pass "dropped $dropped + kept $blocks cover the ${ROUNDS}000 iterations"
else
    fail "dropped '$dropped' + kept $blocks below $((ROUNDS * 1000))"
fi
finish
