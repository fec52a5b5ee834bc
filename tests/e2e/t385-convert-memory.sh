#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# convert --to chrome, perfetto and ctf stream out in bounded memory: on
# the busy guest of ARCH (one loop, N rounds of 1000 blocks), a trace 20
# times longer gives an output at least 10 times larger, and the
# conversion's peak memory (maximum resident set, GNU time) grows by
# less than 2 MiB. Every block is converted (-e '*').
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest busy "$ARCH"
[ -x /usr/bin/time ] || skip "GNU time not installed (Debian package time)"

for n in 25 500; do
    "$QTRACE" record -q -e 'exec_tb,vcpu_*,tb_trans' -o "$WORK/$n.qtr" \
        -- "$GUEST" "$n" > /dev/null 2>&1
    check_eq "busy $n: exec_tb records" yes \
        "$(if [ "$(info_count "$WORK/$n.qtr" exec_tb)" -ge $((n * 1000)) ]
           then echo yes; else echo no; fi)"
done

for fmt in chrome perfetto ctf; do
    for n in 25 500; do
        /usr/bin/time -f '%M' -o "$WORK/rss-$fmt-$n" "$QTRACE" convert \
            -e '*' --to "$fmt" "$WORK/$n.qtr" "$WORK/out-$fmt-$n" \
            2> /dev/null
        check_eq "$fmt, busy $n: status" 0 "$?"
        eval "kb_$n=\$(du -sk \"\$WORK/out-\$fmt-\$n\" | cut -f1)"
        eval "rss_$n=\$(tail -1 \"\$WORK/rss-\$fmt-\$n\")"
        rm -rf "$WORK/out-$fmt-$n"
    done
    # shellcheck disable=SC2154
    check_eq "$fmt: output 10 times larger ($kb_25 KiB, $kb_500 KiB)" yes \
        "$(if [ "$kb_500" -ge $((kb_25 * 10)) ]; then echo yes; else echo no; fi)"
    # shellcheck disable=SC2154
    check_eq "$fmt: peak memory within 2 MiB ($rss_25 KiB, $rss_500 KiB)" \
        yes "$(if [ "$rss_500" -le $((rss_25 + 2048)) ]; then echo yes
               else echo no; fi)"
done
finish
