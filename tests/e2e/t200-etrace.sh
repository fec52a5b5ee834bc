#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# etrace=FILE on ARCH. With the assembly guest: the exact EXEC entries
# and MEM records that follow from what it does by construction
# (asm-ARCH.expect: blocks, their ranges, the accesses of each), TB code
# equal to the guest ELF's bytes, read by the test peer (etrace-peer.py)
# and by `qtrace dump`, which must agree line by line; one EXEC entry
# per block execution; `qtrace convert --to etrace` of the same run's
# native trace gives the plugin's bytes.
# With the demo C guest: native -> etrace -> dump keeps the executed
# ranges and the memory accesses.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/etrace-lib.sh"
use_guest asm "$ARCH"
ASM=$GUEST

# check_same WHAT EXPECTED_FILE ACTUAL_FILE
check_same() {
    if cmp -s "$2" "$3"; then
        pass "$1 ($(wc -l < "$2") lines)"
    else
        fail "$1 differ (expected <, got >):"
        diff "$2" "$3" | head -8 | sed 's/^/    /'
    fi
}

# expected_blocks: "0 START END INSNS TIME BLOCK" per block execution in
# order; BLOCK is the block's position in the 'blocks' list, TIME the
# instructions run before it.
expected_blocks() {
    awk -v blocks="$(expect_get blocks)" \
        -v ranges="$(expect_get block_ranges)" 'BEGIN {
        nb = split(blocks, b, ",")
        split(ranges, r, ",")
        t = 0
        for (i = 1; i <= nb; i++) {
            split(b[i], bc, ":")
            split(r[i], rr, "[-:]")
            for (k = 0; k < bc[2]; k++) {
                print 0, rr[1], rr[2], rr[3], t, i
                t += rr[3]
            }
        }
    }'
}

# expected_exec_mem: with exec and mem, each block execution's accesses
# (block 1 makes none, block N the (N-1)th load and store of the lists)
# then its EXEC entry; MEM lines without their time.
expected_exec_mem() {
    expected_blocks | awk -v loads="$(expect_get load_addrs)" \
        -v stores="$(expect_get store_addrs)" '
    BEGIN { split(loads, ld, ","); split(stores, st, ",") }
    {
        if ($6 > 1) {
            split(ld[$6 - 1], a, ":")
            print "M 0 r", a[1], a[1], "0x0", a[2]
            split(st[$6 - 1], a, ":")
            print "M 0 w", a[1], a[1], "0x0", a[2]
        }
        print "E", $1, $2, $3, $4, $5
    }'
}

# 1. exec (the default flags): one EXEC record, an entry per block
# execution, never merged (the original never merges either).
"$QTRACE" record -o "$WORK/t1.qtr" -O "etrace=$WORK/exec.etr" -- "$ASM" \
    > /dev/null 2> "$WORK/err1"
check_eq "exit status with etrace=" "$(expect_get exit)" "$?"
peer decode "$WORK/exec.etr" > "$WORK/exec.peer" 2> "$WORK/peer1.err"
check_eq "the peer reads the exec trace" 0 "$?"
sed 's/^/    /' "$WORK/peer1.err"
expected_blocks | cut -d' ' -f1-5 | sed 's/^/E /' > "$WORK/exec.want"
grep '^E ' "$WORK/exec.peer" > "$WORK/exec.got"
check_same "EXEC entries, one per block" "$WORK/exec.want" "$WORK/exec.got"
check_eq "EXEC records (BARRIER lines)" 1 "$(grep -c '^B ' "$WORK/exec.peer")"
check_eq "records other than INFO, ARCH, EXEC, BARRIER" 0 \
    "$(grep -cv '^[EBIA]' "$WORK/exec.peer")"
check_eq "first lines" "INFO attr=0x0 version=0.0" \
    "$(head -1 "$WORK/exec.peer")"
case $ARCH in
    arm) bits=32 ;;
    *) bits=64 ;;
esac
check_grep "ARCH: $bits-bit little-endian guest" \
    "^ARCH guest=[0-9]+/$bits/le " "$WORK/exec.peer"

# 2. exec, mem, disas: accesses before their block's entry (a MEM record
# ends the EXEC record), TB code as in the ELF file, each entry one TB.
"$QTRACE" record -o "$WORK/t2.qtr" -O "etrace=$WORK/mem.etr" \
    -O etrace-flags=exec,mem,disas -- "$ASM" > /dev/null 2>&1
check_eq "exit status with etrace-flags=exec,mem,disas" \
    "$(expect_get exit)" "$?"
peer decode "$WORK/mem.etr" --elf "$ASM" > "$WORK/mem.peer" \
    2> "$WORK/peer2.err"
check_eq "the peer reads the mem trace, TB code = ELF bytes" 0 "$?"
sed 's/^/    /' "$WORK/peer2.err"
expected_exec_mem > "$WORK/mem.want"
grep '^[EM] ' "$WORK/mem.peer" | awk '$1 == "M" { $3 = "" } { print }' |
    sed 's/  */ /g' > "$WORK/mem.got"
check_same "EXEC entries and MEM records in order" "$WORK/mem.want" \
    "$WORK/mem.got"
# A MEM record's time is an instruction of the block whose entry follows.
bad=$(awk '$1 == "M" { t[++n] = $3 }
           $1 == "E" { for (i = 1; i <= n; i++)
                           if (t[i] < $6 || t[i] >= $6 + $5) bad++
                       n = 0 }
           END { print bad + 0 }' "$WORK/mem.peer")
check_eq "MEM times outside their block" 0 "$bad"
awk -v r="$(expect_get block_ranges)" "$AWK_HEX"'
    BEGIN { n = split(r, b, ",")
            for (i = 1; i <= n; i++) { split(b[i], x, "[-:]")
                print "T 0", x[1], x[1], hex(x[2]) - hex(x[1]), 0 } }' \
    > "$WORK/tb.want"
grep '^T ' "$WORK/mem.peer" > "$WORK/tb.got"
check_same "TB records (address, size, no host code)" "$WORK/tb.want" \
    "$WORK/tb.got"

# 3. Two readers, one view: qtrace dump against the peer.
for f in exec mem; do
    dump_as_peer "$WORK/$f.etr" > "$WORK/$f.dump"
    check_same "qtrace dump and the peer on $f.etr" "$WORK/$f.peer" \
        "$WORK/$f.dump"
done
"$QTRACE" info "$WORK/mem.etr" > "$WORK/info"
check_grep "info: format etrace" "^format: etrace$" "$WORK/info"
check_grep "info: arch" "^arch: $ARCH$" "$WORK/info"
check_grep "info: complete" "^end: complete$" "$WORK/info"

# 4. convert --to etrace of the native trace of the same run, all flags.
"$QTRACE" record -o "$WORK/t4.qtr" -O "etrace=$WORK/all.etr" \
    -O etrace-flags=all -- "$ASM" > /dev/null 2>&1
"$QTRACE" convert --to etrace "$WORK/t4.qtr" "$WORK/conv.etr"
check_eq "convert status" 0 "$?"
if cmp -s "$WORK/all.etr" "$WORK/conv.etr"; then
    pass "convert --to etrace = the plugin's etrace=, byte for byte"
else
    fail "convert --to etrace differs from the plugin's etrace="
fi

# 5. Round trip on a C guest: native -> etrace -> dump.
DEMO="$GUESTS/demo-$ARCH"
if [ -x "$DEMO" ]; then
    "$QTRACE" record -e 'tb_trans,exec_tb,mem_access' -o "$WORK/rt.qtr" \
        -- "$DEMO" > /dev/null
    "$QTRACE" convert --to etrace "$WORK/rt.qtr" "$WORK/rt.etr"
    "$QTRACE" dump "$WORK/rt.qtr" > "$WORK/rt.native"
    awk "$AWK_HEX"'
        $3 == "tb_trans" { pc[$7] = $5; size[$7] = $9; n[$7] = $11 }
        $3 == "exec_tb" { printf "%s %s 0x%x %s %s\n", $1, $5,
                          hex(pc[$7]) + size[$7], n[$7], $2 }' \
        "$WORK/rt.native" > "$WORK/rt.ranges.want"
    dump_as_peer "$WORK/rt.etr" |
        awk '$1 == "E" { print $2, $3, $4, $5, $6 }' > "$WORK/rt.ranges.got"
    check_same "round trip: executed ranges" "$WORK/rt.ranges.want" \
        "$WORK/rt.ranges.got"
    mem_fields < "$WORK/rt.native" |
        awk '{ print $1, $2, ($13 ~ /[13579bdf]$/ ? "w" : "r"), $7, $11 }' \
        > "$WORK/rt.mem.want"
    dump_as_peer "$WORK/rt.etr" | awk '$1 == "M" { print $2, $3, $4, $5, $8 }' \
        > "$WORK/rt.mem.got"
    check_same "round trip: memory accesses" "$WORK/rt.mem.want" \
        "$WORK/rt.mem.got"
else
    echo "(no demo-$ARCH guest: round trip not run)"
fi
finish
