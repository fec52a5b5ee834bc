# SPDX-License-Identifier: GPL-2.0-or-later
# The bare-metal x86 guest (tests/guests/bare-x86_64.S) in system mode on
# QEMU 7.2 (Debian's qemu-system-x86_64) and 10.0 (QEMU10_DIR), sourced
# after lib.sh. The guest ends QEMU itself through isa-debug-exit.

BARE_BIN="$GUESTS/bare-x86_64.bin"
BARE_ELF="$GUESTS/bare-x86_64.elf"
EXPECT="$GUESTS/bare-x86_64.expect"

# bare_qemus: "LABEL BINARY FIRMWARE_DIR" lines of the QEMUs there are.
bare_qemus() {
    if command -v qemu-system-x86_64 > /dev/null 2>&1; then
        echo "7.2 $(command -v qemu-system-x86_64) -"
    fi
    q10="${QEMU10_DIR:-}/root/usr/bin/qemu-system-x86_64"
    if [ -n "${QEMU10_DIR:-}" ] && [ -x "$q10" ]; then
        echo "10.0 $q10 $QEMU10_DIR/root/usr/share"
    fi
}

# run_bare BINARY FIRMWARE_DIR PLUGIN_ARGS: the guest under the plugin
# with PLUGIN_ARGS (after the library's path); sets status. A guest that
# does not end within 30 s is killed (status 137).
run_bare() {
    b_fw=""
    [ "$2" != - ] && b_fw="-L $2/qemu -L $2/seabios"
    # shellcheck disable=SC2086
    timeout -s KILL 30 "$1" $b_fw -display none -nodefaults -machine pc \
        -accel tcg -m 128 -no-reboot -bios "$BARE_BIN" \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
        -plugin "$QTRACE_PLUGIN,$3" < /dev/null > "$WORK/qemu.out" \
        2> "$WORK/qemu.err"
    status=$?
    [ "$status" -eq "$(expect_get exit)" ] || sed 's/^/    /' "$WORK/qemu.err"
}

# bare_sym NAME: the address of NAME in the guest's ELF, 0x...
bare_sym() {
    nm "$BARE_ELF" | awk -v n="$1" '$3 == n { print "0x" $1 }'
}
