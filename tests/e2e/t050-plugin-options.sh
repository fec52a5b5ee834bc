#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Plugin options on real QEMU with the aarch64 assembly guest: bad options
# fail the load with one line naming them; events files, -patterns,
# range=, afilter= and ifilter= select exactly what they say.
ARCH=aarch64
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"

# run_plugin OPTS: qemu with the plugin; stderr in $WORK/err.
run_plugin() {
    "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,$1" "$GUEST" > /dev/null 2> "$WORK/err"
}

# bad_option OPTS MESSAGE: the load fails with exactly one line.
bad_option() {
    run_plugin "$1"
    st=$?
    [ "$st" -ne 0 ] && [ "$st" -ne 42 ] && pass "$1 fails the load" ||
        fail "$1: status $st"
    check_grep "$1 message" "^qtrace: $2" "$WORK/err"
    check_eq "$1 message lines" 1 "$(grep -c '^qtrace:' "$WORK/err")"
}

cd "$WORK" || exit 1
bad_option "bogus=1" "bogus=1: unknown option"
bad_option "events=mem_acess" "events=mem_acess: no event matches\$"
bad_option "events=exec_tb;nothing_*" "events=exec_tb;nothing_\\*: nothing_\\*: no event matches"
bad_option "events=@$WORK/missing" "events=@$WORK/missing: .*No such file"
bad_option "range=0x500-0x100" "range=0x500-0x100: empty range"
bad_option "range=abc" "range=abc: expected START-END"
bad_option "afilter=zz" "afilter=zz: expected an address"
bad_option "chunk=1" "chunk=1: expected a size"
bad_option "out=$WORK/no/such/dir/t.qtr" "out=.*No such file or directory"

# An events file: comments, blank lines, a glob and a -pattern.
cat > "$WORK/events" <<'EV'
# blocks and instructions, but not their translations' vCPU events
exec_*

-exec_insn   # taken back
tb_trans
EV
run_plugin "events=@$WORK/events,out=$WORK/f.qtr"
check_eq "guest status with events file" 42 "$?"
check_eq "exec_tb from the file" 102 "$(info_count "$WORK/f.qtr" exec_tb)"
check_eq "exec_insn disabled by -pattern" 0 "$(info_count "$WORK/f.qtr" exec_insn)"
check_eq "vcpu_init not selected" 0 "$(info_count "$WORK/f.qtr" vcpu_init)"

loop=$(expect_get loop_pc)
loop_end=$(printf '0x%x' $((loop + 20)))
run_plugin "events=exec_tb;exec_insn,range=$loop-$loop_end,out=$WORK/r.qtr"
check_eq "exec_tb inside range" 100 "$(info_count "$WORK/r.qtr" exec_tb)"
check_eq "exec_insn inside range" 500 "$(info_count "$WORK/r.qtr" exec_insn)"

run_plugin "events=exec_insn,afilter=$loop,out=$WORK/a.qtr"
check_eq "exec_insn with afilter" 100 "$(info_count "$WORK/a.qtr" exec_insn)"

# ifilter: only the two ldr forms (100 + 1 executions) and their loads.
run_plugin "events=exec_insn;mem_access,ifilter=ldr,out=$WORK/i.qtr"
check_eq "exec_insn with ifilter=ldr" 101 "$(info_count "$WORK/i.qtr" exec_insn)"
check_eq "mem_access with ifilter=ldr" 101 "$(info_count "$WORK/i.qtr" mem_access)"
finish
