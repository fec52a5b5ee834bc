#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# etrace of the threaded guest on ARCH (main and 4 POSIX threads): records
# of the vCPUs in the order they happened, as the Xilinx QEMU writes them,
# not one vCPU stream after the other. Read by the test peer
# (etrace-peer.py), which checks every record, a BARRIER after each EXEC,
# NOTE texts ending in a newline and one EXEC entry per TB. The order is
# checked against what the guest does (threads.c): main creates worker k
# (its k-th clone) before worker k starts; every worker exits (exit)
# before main ends (exit_group) after joining them; and the vCPUs' records
# interleave. `qtrace convert --to etrace` of the native trace of the
# same run gives the same bytes.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/etrace-lib.sh"
use_guest threads "$ARCH"

"$QTRACE" record -o "$WORK/t.qtr" -O "etrace=$WORK/t.etr" \
    -O etrace-flags=exec,cpu,disas -- "$GUEST" > /dev/null 2> "$WORK/err"
check_eq "guest exit status" 0 "$?"
peer decode "$WORK/t.etr" --elf "$GUEST" > "$WORK/peer" 2> "$WORK/peer.err"
check_eq "the peer reads every record and finds no rule broken" 0 "$?"
sed 's/^/    /' "$WORK/peer.err"

# Notes of the cpu flag, numbered by their position in the stream.
awk '$1 == "N" { $3 = ""; print NR, $0 }' "$WORK/peer" > "$WORK/notes"
check_eq "vCPU starts" 5 "$(grep -c ' vcpu [0-9]* start$' "$WORK/notes")"

# Worker k (the k-th vCPU to start after vCPU 0) starts after main's k-th
# clone call.
bad=$(awk '
    $3 == 0 && $5 ~ /^clone\(/ { clone[++nc] = $1 }
    $4 == "vcpu" && $6 == "start" && $5 != 0 {
        k++
        if (!(k in clone) || clone[k] > $1) {
            print "vcpu " $5 " starts before its clone"
        }
    }
    END { if (k != 4) print k + 0 " workers started" }' "$WORK/notes")
check_eq "workers that start before main creates them" "" "$bad"

# Every worker calls exit before main's exit_group.
end=$(awk '$3 == 0 && $5 ~ /^exit_group\(/ { print $1; exit }' "$WORK/notes")
exits=$(awk -v end="${end:-0}" '$3 != 0 && $5 ~ /^exit\(/ && $1 < end' \
    "$WORK/notes" | wc -l)
check_eq "worker exits before main's exit_group" 4 "$exits"

# Interleaved: the unit changes from record to record (EXEC and NOTE)
# many more times than once per vCPU. Written stream after stream, the 5
# vCPUs give about 5 changes; in run order 15 to 30 were seen (the exact
# number depends on how the threads' system calls fell), so at least 10.
switches=$(awk '$1 == "E" || $1 == "N" { if (NR > 1 && $2 != u) n++; u = $2 }
                END { print n + 0 }' "$WORK/peer")
if [ "$switches" -ge 10 ]; then
    pass "records of the vCPUs interleave ($switches unit changes)"
else
    fail "records of the vCPUs do not interleave ($switches unit changes)"
fi

# Records of a unit between its start and its exit: no EXEC of a unit
# before its start note or after its exit note.
bad=$(awk '
    $1 == "N" && $4 == "vcpu" && $6 == "start" { live[$2] = 1 }
    $1 == "N" && $4 == "vcpu" && $6 == "exit" { live[$2] = 0 }
    $1 == "E" && !live[$2] {
        print "EXEC of unit " $2 " outside its life"
        exit
    }' "$WORK/peer")
check_eq "EXEC records outside their vCPU's life" "" "$bad"

"$QTRACE" convert --to etrace "$WORK/t.qtr" "$WORK/conv.etr"
check_eq "convert status" 0 "$?"
if cmp -s "$WORK/t.etr" "$WORK/conv.etr"; then
    pass "convert --to etrace = the plugin's etrace=, byte for byte"
else
    fail "convert --to etrace differs from the plugin's etrace="
fi
finish
