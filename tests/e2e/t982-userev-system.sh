#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A library's own events in system mode, QEMU 7.2 and 10.0 (the x86 BIOS
# from the reset vector, one vCPU, for two seconds): the sampler example
# writes sampler:sample at every 1000th block the vCPU enters, counting
# blocks by its own callback. The plugin's exec_tb records of the same
# run are the independent count: the k-th sample must say blocks
# k * 1000 and sit right before the (k * 1000)-th exec_tb record, with
# that block's address. The trace's catalog carries the event, so qtrace
# info counts it and no system call event exists.
. "$(dirname "$0")/lib.sh"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
SAMPLER="$INSTR_EXAMPLES/libqtrace-instr-sampler.so"
EVERY=1000
LIB="instr=$SAMPLER,instr-arg=every=$EVERY"
ran=0

# run_bios QEMU FIRMWARE_DIR LABEL
run_bios() {
    fw=""
    [ -n "$2" ] && fw="-L $2/qemu -L $2/seabios"
    rm -f "$WORK/t.qtr"
    # shellcheck disable=SC2086
    timeout -s TERM 2 "$1" $fw -display none -nodefaults -machine pc \
        -accel tcg -smp 1 -m 128 -no-reboot \
        -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,events=exec_tb;user_event,$LIB" \
        > /dev/null 2> "$WORK/err"
    "$QTRACE" dump "$WORK/t.qtr" 2>/dev/null | awk -v every="$EVERY" '
        $3 == "exec_tb" {
            n++
            if (want != "") {
                if ($5 == want && n == wantn) good++; else bad++
                want = ""
            }
        }
        $3 == "sampler:sample" {
            k++
            if ($9 != k * every) bad++
            want = $5; wantn = $9
        }
        END { print k + 0, good + 0, bad + 0 }' > "$WORK/check"
    read -r samples good bad < "$WORK/check"
    if [ "$samples" -gt 10 ]; then
        pass "$3: $samples samples"
    else
        fail "$3: only $samples samples"
    fi
    # The last sample may be cut off from its block by the end.
    check_eq "$3: each sample before block k * $EVERY, same address" \
        "0" "$bad"
    [ "$good" -ge $((samples - 1)) ] ||
        fail "$3: only $good of $samples samples matched"
    check_eq "$3: info counts them" "$samples" \
        "$(info_count "$WORK/t.qtr" sampler:sample)"
    check_eq "$3: no sampler:syscall in system mode" 0 \
        "$(info_count "$WORK/t.qtr" sampler:syscall)"
    "$QTRACE" info "$WORK/t.qtr" > "$WORK/info" 2>&1
    check_grep "$3: recorded as selected (META events)" \
        '^events: .*exec_tb,user_event,sampler:sample,sampler:syscall$' \
        "$WORK/info"
}

Q10="${QEMU10_DIR:+$QEMU10_DIR/root/usr/bin/qemu-system-x86_64}"
if command -v qemu-system-x86_64 > /dev/null 2>&1; then
    ran=1
    run_bios qemu-system-x86_64 "" "system 7.2"
else
    echo "SKIP system 7.2: qemu-system-x86_64 not installed"
fi
if [ -n "$Q10" ] && [ -x "$Q10" ]; then
    ran=1
    run_bios "$Q10" "$QEMU10_DIR/root/usr/share" "system 10.0"
else
    echo "SKIP system 10.0: no QEMU 10.0 in QEMU10_DIR"
fi
[ "$ran" -eq 1 ] || skip "no qemu-system-x86_64 to run"
finish
