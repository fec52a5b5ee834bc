# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the control socket tests (t980-t984), sourced after lib.sh:
# a guest under qemu-ARCH in the background with ctl=, and waiting for
# its socket. Guests: tests/guests/ctl-wait.c.

# ctl_start_guest SOCKET TRACE PLUGIN_OPTS GUEST_ARGS...: run GUEST (set
# by use_guest) under the plugin in the background; QEMU_PID is its pid,
# its stdout and stderr go to $WORK/guest.out and $WORK/guest.err.
ctl_start_guest() {
    cs_sock=$1
    cs_trace=$2
    cs_opts=$3
    shift 3
    "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,ctl=$cs_sock,out=$cs_trace$cs_opts" \
        "$GUEST" "$@" > "$WORK/guest.out" 2> "$WORK/guest.err" &
    QEMU_PID=$!
}

# ctl_wait_socket SOCKET: wait up to 20 s for the plugin's socket; fails
# the test (and kills QEMU) if it does not come.
ctl_wait_socket() {
    i=0
    while [ ! -S "$1" ] && [ $i -lt 200 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if [ ! -S "$1" ]; then
        fail "socket $1 did not appear"
        sed 's/^/    /' "$WORK/guest.err"
        kill "$QEMU_PID" 2> /dev/null
        finish
    fi
}

# ctl_wait_file FILE LINE: wait up to 20 s until FILE holds LINE.
ctl_wait_file() {
    i=0
    while ! grep -qx "$2" "$1" 2> /dev/null && [ $i -lt 200 ]; do
        sleep 0.1
        i=$((i + 1))
    done
}

# ctl_stop_guest STOPFILE: end a "spin" guest and wait for QEMU; sets
# QEMU_STATUS. A guest still there after 30 s is killed.
ctl_stop_guest() {
    touch "$1"
    i=0
    while kill -0 "$QEMU_PID" 2> /dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$QEMU_PID" 2> /dev/null
    wait "$QEMU_PID"
    QEMU_STATUS=$?
}

# ctl_start_bios 7.2|10.0 SOCKET TRACE: the pc machine's BIOS (no disk:
# it waits for a boot device) under qemu-system-x86_64 7.2 (Debian's) or
# the 10.0 that scripts/fetch-qemu10.sh unpacks into $QEMU10_DIR, with
# the plugin serving SOCKET and writing TRACE; sets QEMU_PID. Skips the
# test when that QEMU is absent.
ctl_start_bios() {
    case $1 in
        7.2)
            cb_qemu=$(command -v qemu-system-x86_64) ||
                skip "qemu-system-x86_64 not installed (Debian package" \
                     "qemu-system-x86)"
            cb_fw="" ;;
        10.0)
            cb_qemu="${QEMU10_DIR:-}/root/usr/bin/qemu-system-x86_64"
            [ -x "$cb_qemu" ] ||
                skip "no QEMU 10.0 in QEMU10_DIR='${QEMU10_DIR:-}' (run" \
                     "scripts/fetch-qemu10.sh DIR)"
            cb_fw="-L $QEMU10_DIR/root/usr/share/qemu"
            cb_fw="$cb_fw -L $QEMU10_DIR/root/usr/share/seabios" ;;
        *) echo "ctl_start_bios: 7.2 or 10.0, not '$1'" >&2; exit 2 ;;
    esac
    # cb_fw is a word list: split on purpose.
    # shellcheck disable=SC2086
    "$cb_qemu" $cb_fw -display none -nodefaults -machine pc -accel tcg \
        -m 128 -no-reboot -plugin "$QTRACE_PLUGIN,ctl=$2,out=$3" \
        > /dev/null 2> "$WORK/guest.err" &
    QEMU_PID=$!
}

# stat_get FILE KEY: the value of "KEY VALUE" in saved stats output.
stat_get() {
    awk -v k="$2" '$1 == k { print $2 }' "$1"
}

# info_get FILE KEY: a value from saved `qtrace info` output.
info_get() {
    sed -n "s/^$2: //p" "$1"
}
