#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The syslog backend of the tracing runtime: trace-events-demo runs in a
# mount namespace of its own (unshare -m) whose /dev/log is a datagram
# socket this test reads, so syslog(3) hands its messages to us and the
# host's log is untouched. Each event must arrive as QEMU sends it:
# facility LOG_DAEMON, level LOG_INFO (priority <30>), "ident[PID]: " from
# LOG_PID, then "name args" as the demo echoed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace-lib.sh"

unshare -m true 2>/dev/null || skip "no mount namespace (unshare -m needs root or user namespaces)"
command -v python3 > /dev/null || skip "python3 not installed"

# In the namespace: a tmpfs over /dev, a listener on /dev/log, the demo.
cat > "$WORK/run.sh" <<SH
mount -t tmpfs none /dev || exit 90
# sh gives background jobs /dev/null as stdin: a device of our own.
mknod -m 666 /dev/null c 1 3 || exit 91
python3 - > "$WORK/syslog" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind('/dev/log')
open('$WORK/ready', 'w').close()
s.settimeout(5)
try:
    while True:
        msg = s.recv(65536).decode()
        print(msg, flush=True)
        if msg.endswith('demo_done done'):
            break
except socket.timeout:
    pass
PY
listener=\$!
tries=0
while [ ! -e "$WORK/ready" ] && [ \$tries -lt 100 ]; do
    sleep 0.05
    tries=\$((tries + 1))
done
cd "$WORK" && "$DEMO_DIR/trace-events-demo-syslog" --trace 'demo_*' \
    > "$WORK/out" 2> "$WORK/err" &
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
check_eq "demo status" 0 "$(cat "$WORK/rc")"
check_eq "nothing on stderr" "" "$(cat "$WORK/err")"
pid=$(cat "$WORK/pid")
check_eq "one message per event" "$(wc -l < "$WORK/out")" \
    "$(wc -l < "$WORK/syslog")"
check_eq "priority <30> (LOG_DAEMON, LOG_INFO), ident[PID] (LOG_PID)" \
    "$(wc -l < "$WORK/out")" \
    "$(grep -Ec "^<30>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} trace-events-demo-syslog\[$pid\]: demo_" "$WORK/syslog")"
check_eq "messages = the demo's echo" "$(cat "$WORK/out")" \
    "$(sed -E 's/^<30>.{15} [^:]*: //' "$WORK/syslog")"
finish
