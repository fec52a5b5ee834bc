#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Predicted accesses are exact on a memory-heavy guest (memheavy: qsort
# with a comparison callback, a hash table, a pointer chase) of ARCH:
# recorded raw, packed, and packed and compressed, in 64 KiB chunks (a
# block's accesses often straddle two), the blocks and accesses of each
# stream are the same records, times and flags included:
#   - one thread: the whole stream;
#   - three worker threads beside main: each worker's stream up to its
#     return from run (till then a worker touches only its own memory),
#     main's up to its first clone (after it, how long main waits is
#     the scheduler's). Which vCPU index a worker runs on is the
#     scheduler's too (QEMU gives a later thread the index of one that
#     has ended), so the workers' streams are compared as a set.
# Packing shrinks the trace, compressing shrinks it more.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest memheavy "$ARCH"

# streams DUMP PREFIX: each stream's records into PREFIX.VCPU-N, N
# counting the threads that ran on that vCPU index (a new one starts
# its count again from 0), main's cut at its first clone, a worker's
# where run returns into glibc's start_thread (whose exit path counts
# the threads down in a shared variable: a lost race there is one more
# turn of its compare-and-swap loop); the vCPU index and translation
# ids left out (threads translate in any order).
streams() {
    awk -v pre="$2" '
        $3 == "syscall" && $1 == 0 && / \| clone/ { cut = 1 }
        $3 == "exec_tb" || $3 == "mem_access" {
            if ($1 == 0 && cut) next
            if (($1 in last) && $2 + 0 < last[$1]) {
                seg[$1]++
                delete in_run[$1]
                delete ended[$1]
            }
            last[$1] = $2 + 0
            if ($1 != 0 && $3 == "exec_tb") {
                fn = $NF
                sub(/\+.*/, "", fn)
                if (fn == "run")
                    in_run[$1] = 1
                else if (in_run[$1] && fn == "start_thread" &&
                         !ended[$1]) {
                    ended[$1] = 1
                    cuts++
                }
            }
            if (ended[$1]) next
            f = pre "." $1 "-" (seg[$1] + 0)
            sub(/ \|.*/, "")
            sub(/ tb [0-9]+/, "")
            sub(/^[^ ]+ /, "")
            print > f
        }
        END { print cuts + 0 > (pre "-cuts") }' "$1"
}

# sums PREFIX: the sorted checksums of the workers' streams.
sums() {
    for f in "$1".*; do
        case $f in "$1".0-0) continue ;; esac
        md5sum < "$f" | cut -d' ' -f1
    done | sort
}

for run in single:0 threads:3; do
    name=${run%%:*}
    for variant in default:packed:zstd packed:packed:off raw:raw:off; do
        v=${variant%%:*}
        rest=${variant#*:}
        env -i "$QTRACE" record -e 'exec_tb,mem_access,syscall' \
            -O "encoding=${rest%%:*}" -O "compress=${rest#*:}" -O chunk=64k \
            -o "$WORK/$name-$v.qtr" -- "$GUEST" "${run#*:}" 3000 \
            > "$WORK/$name-$v.out" 2> "$WORK/$name-$v.err"
        check_eq "$name $v: status" 0 "$?"
        "$QTRACE" dump -e exec_tb,mem_access,syscall "$WORK/$name-$v.qtr" \
            > "$WORK/$name-$v.txt"
        check_eq "$name $v: dump status" 0 "$?"
        streams "$WORK/$name-$v.txt" "$WORK/$name-$v.s"
        rm -f "$WORK/$name-$v.txt"
    done
    check_eq "$name: the guest's output, packed and raw" \
        "$(cat "$WORK/$name-raw.out")" "$(cat "$WORK/$name-packed.out")"
    for s in "$WORK/$name-raw.s".*; do
        stream=${s##*.}
        accesses=$(grep -c ' mem_access ' "$s")
        [ "$accesses" -gt 10000 ] || [ "$stream" = 0-0 ] ||
            fail "$name stream $stream: only $accesses accesses"
    done
    check_eq "$name: worker streams" "${run#*:}" \
        "$(sums "$WORK/$name-raw.s" | wc -l)"
    check_eq "$name: worker streams cut where run returns" "${run#*:}" \
        "$(cat "$WORK/$name-raw.s-cuts")"
    s="$WORK/$name-raw.s.0-0"
    for v in packed default; do
        if cmp -s "$s" "$WORK/$name-$v.s.0-0"; then
            pass "$name main: $v = raw ($(wc -l < "$s") records)"
        else
            fail "$name main: $v and raw differ:"
            diff "$s" "$WORK/$name-$v.s.0-0" | head -5
        fi
        check_eq "$name workers: $v = raw, as a set of streams" \
            "$(sums "$WORK/$name-raw.s")" "$(sums "$WORK/$name-$v.s")"
    done
    check_eq "$name: streams" "$(ls "$WORK/$name-raw.s".* | wc -l)" \
        "$(ls "$WORK/$name-packed.s".* | wc -l)"
    raw=$(wc -c < "$WORK/$name-raw.qtr")
    packed=$(wc -c < "$WORK/$name-packed.qtr")
    zstd=$(wc -c < "$WORK/$name-default.qtr")
    [ "$packed" -lt "$raw" ] && pass "$name: packed $packed < raw $raw bytes" ||
        fail "$name: packed $packed bytes, raw $raw"
    [ "$zstd" -lt "$packed" ] &&
        pass "$name: compressed $zstd < packed $packed bytes" ||
        fail "$name: compressed $zstd bytes, packed $packed"
    rm -f "$WORK/$name"-*
done
finish
