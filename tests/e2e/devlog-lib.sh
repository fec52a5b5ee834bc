# SPDX-License-Identifier: GPL-2.0-or-later
# A private /dev/log for tests of syslog output: the command runs in a
# mount namespace of its own (unshare -m) with a tmpfs over /dev, whose
# /dev/log is a datagram socket read by a listener, so syslog(3) hands
# its messages to the test and the host's log is untouched.
#
# run_with_devlog CMD: run the shell command CMD (from $WORK) in such a
# namespace. Afterwards $WORK/syslog holds one message a line, CMD's
# output is in $WORK/out and $WORK/err, its pid in $WORK/pid and its
# status in $WORK/rc. Skips where the namespace cannot be made. Needs
# lib.sh.

run_with_devlog() {
    unshare -m true 2>/dev/null ||
        skip "no mount namespace (unshare -m needs root or user namespaces)"
    command -v python3 > /dev/null || skip "python3 not installed"
    # The listener stops once CMD has exited and the socket is quiet.
    cat > "$WORK/run.sh" <<SH
mount -t tmpfs none /dev || exit 90
# sh gives background jobs /dev/null as stdin: a device of our own.
mknod -m 666 /dev/null c 1 3 || exit 91
python3 - > "$WORK/syslog" <<'PY' &
import os, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind('/dev/log')
open('$WORK/ready', 'w').close()
s.settimeout(0.5)
while True:
    try:
        print(s.recv(65536).decode(), flush=True)
    except socket.timeout:
        if os.path.exists('$WORK/rc'):
            break
PY
listener=\$!
tries=0
while [ ! -e "$WORK/ready" ] && [ \$tries -lt 100 ]; do
    sleep 0.05
    tries=\$((tries + 1))
done
cd "$WORK" && $1 > "$WORK/out" 2> "$WORK/err" &
echo \$! > "$WORK/pid"
wait \$!
echo \$? > "$WORK/rc"
wait \$listener
SH
    unshare -m sh "$WORK/run.sh"
    devlog_rc=$?
    case $devlog_rc in
    90|91) skip "cannot mount a tmpfs over /dev or make /dev/null in a mount namespace" ;;
    esac
    check_eq "namespace set up" 0 "$devlog_rc"
}
