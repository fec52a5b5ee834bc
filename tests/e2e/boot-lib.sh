# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# The x86 firmware guest (tests/guests/boot-x86) in system mode, for the
# tests that run it on QEMU 7.2 (Debian's) and 10.0 (QEMU10_DIR). Sourced
# after lib.sh.

# use_boot_x86 7.2|10.0: set GUEST, EXPECT and BOOT_QEMU (the binary and
# its firmware options, a word list), or skip.
use_boot_x86() {
    GUEST="$GUESTS/boot-x86"
    EXPECT="$GUESTS/boot-x86.expect"
    [ -f "$GUEST" ] || skip "guest boot-x86 not built (no x86 compiler)"
    case $1 in
        7.2)
            BOOT_QEMU=$(command -v qemu-system-x86_64) ||
                skip "qemu-system-x86_64 not installed (Debian package" \
                     "qemu-system-x86)" ;;
        10.0)
            q=${QEMU10_DIR:+$QEMU10_DIR/root/usr/bin/qemu-system-x86_64}
            [ -n "$q" ] && [ -x "$q" ] ||
                skip "no QEMU 10.0 in QEMU10_DIR (scripts/fetch-qemu10.sh)"
            BOOT_QEMU="$q -L $QEMU10_DIR/root/usr/share/qemu"
            BOOT_QEMU="$BOOT_QEMU -L $QEMU10_DIR/root/usr/share/seabios" ;;
        *) echo "use_boot_x86: 7.2 or 10.0, not '$1'" >&2; exit 2 ;;
    esac
}

# run_boot_x86 PLUGIN_OPTIONS: the guest until it writes to its exit
# port (killed after 30 s); stdout and stderr to $WORK/out and
# $WORK/err, QEMU's status in rc.
run_boot_x86() {
    # BOOT_QEMU is a word list: split on purpose.
    # shellcheck disable=SC2086
    timeout -s KILL 30 $BOOT_QEMU -display none -nodefaults -machine pc \
        -accel tcg -m 16 -no-reboot -bios "$GUEST" \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
        -plugin "$QTRACE_PLUGIN,$1" > "$WORK/out" 2> "$WORK/err"
    rc=$?
}
