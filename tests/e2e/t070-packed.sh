#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The default encoding (packed blocks, accesses and function records,
# zstd-compressed chunks) expands to exactly what the raw, uncompressed
# encoding records: the assembly and demo guests of ARCH, each run with
# the same empty environment, give the same exec_tb, mem_access,
# func_entry and func_exit records (addresses, sizes, flags, depths, kinds
# and times) whether packed, compressed or neither, with the blocks or
# with the function records alone ("calls"); packing and then compressing
# each make the trace smaller.
ARCH=$1
. "$(dirname "$0")/lib.sh"

for guest in asm demo calls; do
    case $guest in
    calls) record_ev='func_*'; guest_bin=demo ;;
    *) record_ev='tb_trans,exec_tb,mem_access,func_*'; guest_bin=$guest ;;
    esac
    use_guest "$guest_bin" "$ARCH"
    for variant in default:packed:zstd packed:packed:off raw:raw:off; do
        name=${variant%%:*}
        rest=${variant#*:}
        env -i "$QTRACE" record -e "$record_ev" \
            -O "encoding=${rest%%:*}" -O "compress=${rest#*:}" \
            -o "$WORK/$guest-$name.qtr" -- "$GUEST" > /dev/null 2>&1
        "$QTRACE" dump -e 'exec_tb,mem_access,func_*' \
            "$WORK/$guest-$name.qtr" > "$WORK/$guest-$name.txt"
        check_eq "$guest $name: dump status" 0 "$?"
    done
    if [ "$guest" != asm ]; then
        check_grep "$guest: function records present" ' func_exit ' \
            "$WORK/$guest-raw.txt"
    fi
    check_eq "$guest: records present" yes \
        "$([ -s "$WORK/$guest-raw.txt" ] && echo yes || echo no)"
    for name in packed default; do
        if cmp -s "$WORK/$guest-raw.txt" "$WORK/$guest-$name.txt"; then
            pass "$guest: $name and raw give the same $(wc -l < "$WORK/$guest-raw.txt") records"
        else
            fail "$guest: $name and raw differ:"
            diff "$WORK/$guest-raw.txt" "$WORK/$guest-$name.txt" | head -5
        fi
    done
    raw=$(wc -c < "$WORK/$guest-raw.qtr")
    packed=$(wc -c < "$WORK/$guest-packed.qtr")
    zstd=$(wc -c < "$WORK/$guest-default.qtr")
    [ "$packed" -lt "$raw" ] && pass "$guest: packed $packed < raw $raw bytes" ||
        fail "$guest: packed $packed bytes, raw $raw"
    [ "$zstd" -lt "$packed" ] &&
        pass "$guest: compressed $zstd < packed $packed bytes" ||
        fail "$guest: compressed $zstd bytes, packed $packed"
done
finish
