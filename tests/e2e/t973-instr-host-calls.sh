#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The instrumentation host calls on each QEMU: symbol lookup, instruction
# bytes, read_mem, read_reg and the memory access fields, asked once by
# a probe library (tests/instr/probe.c).
#   user mode, QEMU 7.2, asm-x86_64 and asm-aarch64: the entry's symbol
#     as nm names it, its bytes as objdump -s dumps them; read_mem and
#     read_reg say "not supported" (-2); a store has no value nor paddr.
#   system mode, QEMU 7.2 and 10.0 (the BIOS from the reset vector): the
#     first instruction is the reset vector's (bytes from the BIOS image
#     at its last 16 bytes); no symbols (-2); 10.0 reads memory (the same
#     bytes) and rip (0xfff0, the x86 reset value), and gives a store's
#     value and physical address; 7.2 gives the physical address only.
. "$(dirname "$0")/lib.sh"
[ -n "${INSTR_TEST_LIBS:-}" ] || skip "INSTR_TEST_LIBS not set"
PROBE="$INSTR_TEST_LIBS/libinstr-probe.so"
ENOTSUP=-2
ran=0

# probe_line KEY: the probe's line starting with KEY, the key dropped.
probe_line() { sed -n "s/^$1 //p" "$WORK/probe"; }

# bytes_at ELF ADDR: the 4 bytes at ADDR in ELF's sections, in file
# (memory) order, hex, from objdump's section dump.
bytes_at() {
    objdump -s --start-address="$2" --stop-address=$(($2 + 4)) "$1" |
        awk '$1 ~ /^[0-9a-f]+$/ && NF > 1 { print $2; exit }'
}

# check_direction LABEL: a LOADS callback on every instruction saw loads
# (the guests load) and never a store.
check_direction() {
    set -- "$1" $(probe_line loads)
    if [ "${2:-0}" -gt 0 ] && [ "$4" = 0 ]; then
        pass "$1: LOADS callbacks: $2 loads, no store"
    else
        fail "$1: LOADS callbacks: '$(probe_line loads)'"
    fi
}

for arch in x86_64 aarch64; do
    GUEST="$GUESTS/asm-$arch"
    if ! command -v "qemu-$arch" > /dev/null 2>&1 || [ ! -x "$GUEST" ]; then
        echo "SKIP user $arch: no qemu-$arch or guest"
        continue
    fi
    ran=1
    entry=$(nm "$GUEST" | awk '$3 == "_start" { print "0x" $1 }')
    reg=pc; [ "$arch" = x86_64 ] && reg=rip
    rm -f "$WORK/probe"
    "qemu-$arch" -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,instr=$PROBE,instr-arg=out=$WORK/probe,instr-arg=reg=$reg" \
        "$GUEST" > /dev/null 2>&1
    check_eq "user $arch: symbol of the first block" "_start+0x0" \
        "$(probe_line symbol)"
    check_eq "user $arch: first instruction's bytes" \
        "0x$(bytes_at "$GUEST" "$entry")" \
        "$(probe_line code)"
    check_eq "user $arch: read_mem on 7.2" "rc $ENOTSUP" "$(probe_line mem)"
    check_eq "user $arch: read_reg on 7.2" "$reg rc $ENOTSUP" \
        "$(probe_line reg)"
    check_eq "user $arch: store without value nor paddr" \
        "has_value 0 has_paddr 0" \
        "$(probe_line store | awk '{ print $5, $6, $9, $10 }')"
    check_direction "user $arch"
done

# system QEMU FIRMWARE_DIR LABEL: the BIOS under the probe for a while.
system() {
    rm -f "$WORK/probe"
    fw=""
    [ -n "$2" ] && fw="-L $2/qemu -L $2/seabios"
    # shellcheck disable=SC2086
    timeout -s TERM 20 "$1" $fw -display none -nodefaults -machine pc \
        -accel tcg -m 128 -no-reboot \
        -plugin "$QTRACE_PLUGIN,out=$WORK/t.qtr,instr=$PROBE,instr-arg=out=$WORK/probe,instr-arg=reg=rip" \
        > /dev/null 2>&1 &
    pid=$!
    # Until the store line is there (a fraction of a second), then stop.
    n=0
    while [ $n -lt 150 ] && ! grep -q '^store' "$WORK/probe" 2>/dev/null; do
        sleep 0.1; n=$((n + 1))
    done
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    bios=$(ls "$2"/seabios/bios-256k.bin /usr/share/seabios/bios-256k.bin \
           2>/dev/null | head -1)
    check_eq "$3: no guest symbols in system mode" "rc $ENOTSUP" \
        "$(probe_line symbol)"
    if [ -n "$bios" ]; then
        check_eq "$3: reset vector bytes (BIOS image's last 16)" \
            "0x$(tail -c 16 "$bios" | od -An -tx1 -N4 | tr -d ' \n')" \
            "$(probe_line code)"
    fi
}

Q10="${QEMU10_DIR:+$QEMU10_DIR/root/usr/bin/qemu-system-x86_64}"
if [ -n "$Q10" ] && [ -x "$Q10" ]; then
    ran=1
    system "$Q10" "$QEMU10_DIR/root/usr/share" "system 10.0"
    check_eq "system 10.0: read_mem gives the instruction's bytes" \
        "rc 0 $(probe_line code)" "$(probe_line mem)"
    check_eq "system 10.0: rip at the reset vector" "rip rc 0 0xfff0" \
        "$(probe_line reg)"
    check_eq "system 10.0: store with value and paddr" \
        "has_value 1 has_paddr 1" \
        "$(probe_line store | awk '{ print $5, $6, $9, $10 }')"
    check_direction "system 10.0"
else
    echo "SKIP system 10.0: no QEMU 10.0 in QEMU10_DIR"
fi
if command -v qemu-system-x86_64 > /dev/null 2>&1; then
    ran=1
    system qemu-system-x86_64 "" "system 7.2"
    check_eq "system 7.2: read_mem not supported" "rc $ENOTSUP" \
        "$(probe_line mem)"
    check_eq "system 7.2: read_reg not supported" "rip rc $ENOTSUP" \
        "$(probe_line reg)"
    check_eq "system 7.2: store with paddr, no value" \
        "has_value 0 has_paddr 1" \
        "$(probe_line store | awk '{ print $5, $6, $9, $10 }')"
    check_direction "system 7.2"
fi
[ "$ran" -eq 1 ] || skip "no QEMU to run"
finish
