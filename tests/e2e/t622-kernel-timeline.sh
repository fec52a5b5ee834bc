#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One timeline across vCPUs in system mode: Debian's x86_64 kernel on 2
# vCPUs under MTTCG with the test initramfs (both CPUs busy for a second
# before poweroff), the kernel's blocks recorded with host clock stamps
# (--timeline). The boot reaches poweroff and its trace is complete with
# both streams; dump --merge prints the stamps of both vCPUs in one order
# whose host times never go back, alternating between the vCPUs, every
# one of them (the counts of qtrace info), and the blocks too (the first
# millions); report --vcpus gives both streams host-time spans that
# overlap, and the secondary CPU pauses (it waits for the boot CPU to
# start it, halted); babeltrace2 reads the stamps of both vCPUs from the
# CTF conversion in one order. Usage: t622-kernel-timeline.sh 7.2|10.0.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"
case ${1:-} in
    7.2|10.0) ;;
    *) echo "usage: t622-kernel-timeline.sh 7.2|10.0" >&2; exit 2 ;;
esac
TEST_NAME=t622-kernel-timeline-$1
use_kernel x86_64 "$1"

T="$WORK/boot.qtr"
boot_kernel "$T" 2 "qtrace.work=2" --timeline -e exec_tb \
    -O "range=$KRANGE"
check_poweroff 2
check_complete "$T" 2
check_grep "META says the stamps' clock" '^timeline: monotonic$' \
    "$WORK/info"
stamps=$(awk '$1 == "clock" { print $2 }' "$WORK/info")
[ "${stamps:-0}" -gt 100 ] && pass "clock stamps: $stamps" ||
    fail "clock stamps: ${stamps:-0}, expected hundreds (chunks, idles)"

# Every stamp once, in one order by host time, both vCPUs interleaved.
"$QTRACE" dump --merge -e clock "$T" > "$WORK/stamps" 2> "$WORK/err"
check_eq "dump --merge -e clock status" 0 "$?"
check_eq "every stamp once" "$stamps" "$(wc -l < "$WORK/stamps")"
check_eq "host times never go back" "0" \
    "$(awk '{ t = $1 + 0; if (t < last) bad++; last = t }
            END { print bad + 0 }' "$WORK/stamps")"
check_eq "stamps of vCPUs 0 and 1" "0 1" \
    "$(cut -d' ' -f2 "$WORK/stamps" | sort -u | tr '\n' ' ' | sed 's/ $//')"
switches=$(awk 'NR > 1 && $2 != prev { n++ } { prev = $2 }
                END { print n + 0 }' "$WORK/stamps")
[ "$switches" -gt 20 ] &&
    pass "the vCPUs' stamps interleave: $switches switches" ||
    fail "the vCPUs' stamps interleave: $switches switches, expected many"

# The blocks, merged: the first 2 million, in an order that never goes
# back (the rest of the boot's blocks take minutes to print).
"$QTRACE" dump --merge -e exec_tb "$T" 2> /dev/null | head -n 2000000 |
    awk '{ t = $1 + 0; if (t < last) bad++; last = t; n++ }
         END { print n " " bad + 0 }' > "$WORK/blocks"
check_eq "2000000 merged blocks, host times never going back" \
    "2000000 0" "$(cat "$WORK/blocks")"

# report --vcpus: both spans on the host clock, overlapping; the
# secondary CPU paused (halted until the boot CPU starts it).
"$QTRACE" report --vcpus --format=csv "$T" > "$WORK/vcpus"
check_eq "report --vcpus: spans that overlap, vCPU 1 paused" "ok" \
    "$(awk -F, 'NR == 2 { s0 = $8; e0 = $9 }
                NR == 3 { s1 = $8; e1 = $9; p1 = $10 }
                END { r = "no: " s0 "-" e0 " " s1 "-" e1 " " p1
                      if (NR == 3 && s0 < e1 && s1 < e0 && p1 > 0) r = "ok"
                      print r }' \
       "$WORK/vcpus")"

# CTF on the host clock: babeltrace2 interleaves both vCPUs' stamps.
if command -v babeltrace2 > /dev/null 2>&1; then
    "$QTRACE" convert --to ctf -e clock "$T" "$WORK/ctf" 2> "$WORK/err"
    check_eq "convert --to ctf status" 0 "$?"
    babeltrace2 --clock-cycles "$WORK/ctf" > "$WORK/bt" 2> "$WORK/bt.err"
    check_eq "babeltrace2 status" 0 "$?"
    check_eq "babeltrace2: every stamp" "$stamps" "$(wc -l < "$WORK/bt")"
    check_eq "babeltrace2: the stamps in dump --merge's order" \
        "$(cut -d' ' -f2 "$WORK/stamps" | cksum)" \
        "$(sed -n 's/.*cpu_id = \([0-9]*\),.*/\1/p' "$WORK/bt" | cksum)"
else
    echo "INFO babeltrace2 not installed: CTF part not checked"
fi
finish
