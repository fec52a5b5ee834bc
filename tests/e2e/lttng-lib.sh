# SPDX-License-Identifier: GPL-2.0-or-later
# A session daemon for the tests of LTTng-UST output (the ust backend of
# the tracing runtime and the plugin's backend=ust), sourced after lib.sh:
# uses one that already answers, or starts one in a private LTTNG_HOME
# under $WORK and stops it at exit (skipping loudly where it cannot
# start). Sets SESSION, a session name of this test.

for tool in lttng lttng-sessiond babeltrace2 python3; do
    command -v "$tool" > /dev/null ||
        skip "$tool not installed (lttng-tools, babeltrace2)"
done

export LTTNG_HOME="$WORK/home"
mkdir "$LTTNG_HOME"
SESSIOND_PID=
SESSION=qtrace-$TEST_NAME-$$

stop_lttng() {
    lttng destroy "$SESSION" > /dev/null 2>&1
    if [ -n "$SESSIOND_PID" ]; then
        kill "$SESSIOND_PID" 2> /dev/null
        i=0
        while kill -0 "$SESSIOND_PID" 2> /dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    fi
    rm -rf "$WORK"
}
trap stop_lttng EXIT

if ! lttng list > /dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        rundir=/run/lttng
    else
        rundir="$LTTNG_HOME/.lttng"
    fi
    lttng-sessiond --daemonize --no-kernel > "$WORK/sessiond.log" 2>&1 ||
        skip "lttng-sessiond cannot start here (no shared memory or no permission): $(tail -1 "$WORK/sessiond.log")"
    SESSIOND_PID=$(cat "$rundir/lttng-sessiond.pid" 2> /dev/null)
    lttng list > /dev/null 2>&1 ||
        skip "lttng-sessiond started but does not answer"
fi

# lttng_start EVENTS: a fresh session recording EVENTS into $WORK/lttng.
lttng_start() {
    rm -rf "$WORK/lttng"
    lttng create "$SESSION" --output="$WORK/lttng" > /dev/null &&
        lttng enable-event -u -s "$SESSION" "$1" > /dev/null &&
        lttng start "$SESSION" > /dev/null
}

# lttng_stop: stop and destroy the session, babeltrace2's text of what it
# recorded into $WORK/bt2; returns babeltrace2's status.
lttng_stop() {
    lttng stop "$SESSION" > /dev/null
    lttng destroy "$SESSION" > /dev/null
    babeltrace2 "$WORK/lttng" > "$WORK/bt2" 2> "$WORK/bt2.err"
}
