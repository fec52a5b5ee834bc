#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backend=syslog: QEMU with the plugin runs in a mount namespace of its
# own (unshare -m) whose /dev/log is a datagram socket this test reads,
# so the host's log is untouched. Each record must arrive as QEMU's
# syslog backend sends it: priority <30> (LOG_DAEMON, LOG_INFO),
# "qemu-ARCH[PID]: " (LOG_PID), then "name format-output", the same
# text as the native trace's dump, and the asm guest's blocks as many
# times as its construction says.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/backends-lib.sh"
use_guest asm "$ARCH"

unshare -m true 2>/dev/null || skip "no mount namespace (unshare -m needs root or user namespaces)"
command -v python3 > /dev/null || skip "python3 not installed"
QEMU=$(command -v "qemu-$ARCH")

# In the namespace: a tmpfs over /dev, a listener on /dev/log, QEMU. The
# listener stops once QEMU has exited and the socket is quiet.
cat > "$WORK/run.sh" <<SH
mount -t tmpfs none /dev || exit 90
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
cd "$WORK" && "$QEMU" \
    -plugin "$QTRACE_PLUGIN,out=t.qtr,events=exec_tb,backend=syslog" \
    "$GUEST" > "$WORK/out" 2> "$WORK/err" &
echo \$! > "$WORK/pid"
wait \$!
echo \$? > "$WORK/rc"
wait \$listener
SH
unshare -m sh "$WORK/run.sh"
rc=$?
case $rc in
90|91) skip "cannot mount a tmpfs over /dev or make /dev/null in a mount namespace" ;;
esac
check_eq "namespace set up" 0 "$rc"
check_eq "guest exit status" "$(expect_get exit)" "$(cat "$WORK/rc")"
check_eq "nothing on stderr" "" "$(cat "$WORK/err")"
pid=$(cat "$WORK/pid")
n=$(wc -l < "$WORK/syslog")
check_eq "priority <30>, ident qemu-$ARCH[PID] on every message" "$n" \
    "$(grep -Ec "^<30>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} qemu-$ARCH\[$pid\]: [a-z_]+ " "$WORK/syslog")"
sed -E 's/^<30>.{15} [^:]*: //' "$WORK/syslog" > "$WORK/lines"
check_eq "exec_tb per block = the guest's construction" \
    "$(expect_blocks)" "$(count_blocks < "$WORK/lines")"
"$QTRACE" dump "$WORK/t.qtr" | cut -d' ' -f3- | sed 's/ | .*//' \
    > "$WORK/dump"
check_same "messages = native dump lines" "$WORK/dump" "$WORK/lines"
finish
