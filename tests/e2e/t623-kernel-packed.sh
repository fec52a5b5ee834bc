#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The packed encoding of system mode is exact on a real Linux boot:
# Debian's x86_64 kernel on 2 vCPUs under MTTCG, with two copies of the
# plugin loaded into the same QEMU, one writing the packed encoding
# (predicted accesses, physical addresses from the translation cache),
# the other the raw one (a record per access, the physical address QEMU
# gave for each). Both see the same executions, so each vCPU's blocks
# and accesses must be the same records, times, addresses, physical
# addresses and flags, in the first 4 M kernel instructions of each vCPU
# (range= and stop-after=: early paging, the fixmap's remappings, the
# secondary CPU's start). On 7.2 the packed copy also asks QEMU for every
# access (phys-check=on) and must find that the translations it kept
# between the vCPU's translation changes never differed. Usage:
# t623-kernel-packed.sh 7.2|10.0.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"
case ${1:-} in
    7.2|10.0) ;;
    *) echo "usage: t623-kernel-packed.sh 7.2|10.0" >&2; exit 2 ;;
esac
TEST_NAME=t623-kernel-packed-$1
use_kernel x86_64 "$1"
WINDOW="range=$KRANGE,stop-after=4000000"

# A second copy of the plugin: QEMU loads a file once, so the copy is a
# second instance with its own state.
cp "$QTRACE_PLUGIN" "$WORK/libqtrace-raw.so" || exit 1
RAW="$WORK/raw.qtr"
rm -f "$RAW"
boot_kernel "$WORK/packed.qtr" 2 "" -e exec_tb,mem_access \
    -O "range=$KRANGE" -O stop-after=4000000 -O phys-check=on -- \
    -plugin "$WORK/libqtrace-raw.so,out=$RAW,encoding=raw,$WINDOW,events=exec_tb;mem_access"
check_poweroff 2
check_complete "$WORK/packed.qtr" 2
check_complete "$RAW" 2

if [ "$1" = 7.2 ]; then
    line=$(grep '^qtrace: phys-check:' "$WORK/err" | head -1)
    echo "INFO $line"
    checked=$(echo "$line" | awk '{ print $3 }')
    if [ "${checked:-0}" -gt 1000000 ]; then
        pass "phys-check: ${checked} accesses by kept translations"
    else
        fail "phys-check: ${checked:-no} accesses by kept translations," \
             "expected millions"
    fi
    check_eq "phys-check: kept translations that differed from QEMU's" \
        0 "$(echo "$line" | awk '{ print $8 }')"
fi

# streams DUMP PREFIX: each vCPU's blocks and accesses into PREFIX.VCPU,
# translation ids left out (the two copies number blocks alike, but
# nothing requires it).
streams() {
    awk -v pre="$2" '
        $3 == "exec_tb" || $3 == "mem_access" {
            sub(/ \|.*/, "")
            sub(/ tb [0-9]+/, "")
            print > (pre "." $1)
        }' "$1"
}
"$QTRACE" dump -j 1 "$WORK/packed.qtr" > "$WORK/packed.dump" 2>&1
check_eq "dump packed: status" 0 "$?"
"$QTRACE" dump -j 1 "$RAW" > "$WORK/raw.dump" 2>&1
check_eq "dump raw: status" 0 "$?"
streams "$WORK/packed.dump" "$WORK/p"
streams "$WORK/raw.dump" "$WORK/r"
rm -f "$WORK/packed.dump" "$WORK/raw.dump"
for v in 0 1; do
    n=$(wc -l < "$WORK/r.$v")
    acc=$(grep -c ' mem_access ' "$WORK/r.$v")
    paddr=$(grep -c ' mem_access .* paddr ' "$WORK/r.$v")
    if [ "$acc" -gt 100000 ] && [ "$paddr" -eq "$acc" ]; then
        pass "vCPU $v: $n records, $acc accesses, each with its paddr"
    else
        fail "vCPU $v: $n records, $acc accesses, $paddr with a paddr"
    fi
    if cmp -s "$WORK/r.$v" "$WORK/p.$v"; then
        pass "vCPU $v: packed = raw, record for record"
    else
        fail "vCPU $v: packed and raw differ:"
        diff "$WORK/r.$v" "$WORK/p.$v" | head -6 | sed 's/^/    /'
    fi
done
raw_mb=$(($(stat -c %s "$RAW") / 1048576))
packed_mb=$(($(stat -c %s "$WORK/packed.qtr") / 1048576))
echo "INFO raw $raw_mb MB, packed $packed_mb MB"
if [ "$packed_mb" -lt "$raw_mb" ]; then
    pass "packed is smaller: $packed_mb MB against $raw_mb MB"
else
    fail "packed $packed_mb MB, raw $raw_mb MB"
fi
rm -f "$WORK"/r.* "$WORK"/p.* "$RAW" "$WORK/packed.qtr"
finish
