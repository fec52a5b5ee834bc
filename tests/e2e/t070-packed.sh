#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The packed encoding (the default) expands to exactly what the raw
# encoding records: the assembly and demo guests of ARCH, each run once
# packed and once raw with the same empty environment, give the same
# exec_tb and mem_access records (addresses, sizes, flags and times), and
# the packed trace is smaller.
ARCH=$1
. "$(dirname "$0")/lib.sh"

for guest in asm demo; do
    use_guest "$guest" "$ARCH"
    for enc in packed raw; do
        env -i "$QTRACE" record -e 'tb_trans,exec_tb,mem_access' \
            -O "encoding=$enc" -o "$WORK/$guest-$enc.qtr" -- "$GUEST" \
            > /dev/null 2>&1
        "$QTRACE" dump -e 'exec_tb,mem_access' "$WORK/$guest-$enc.qtr" \
            > "$WORK/$guest-$enc.txt"
        check_eq "$guest $enc: dump status" 0 "$?"
    done
    if cmp -s "$WORK/$guest-raw.txt" "$WORK/$guest-packed.txt"; then
        pass "$guest: packed and raw give the same $(wc -l < "$WORK/$guest-raw.txt") records"
    else
        fail "$guest: packed and raw differ:"
        diff "$WORK/$guest-raw.txt" "$WORK/$guest-packed.txt" | head -5
    fi
    check_eq "$guest: records present" yes \
        "$([ -s "$WORK/$guest-raw.txt" ] && echo yes || echo no)"
    raw=$(wc -c < "$WORK/$guest-raw.qtr")
    packed=$(wc -c < "$WORK/$guest-packed.qtr")
    [ "$packed" -lt "$raw" ] && pass "$guest: packed $packed < raw $raw bytes" ||
        fail "$guest: packed $packed bytes, raw $raw"
done
finish
