# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the tests of the tracing runtime (t9xx-trace-*), sourced after
# lib.sh. Environment from tests/e2e/meson.build: DEMO_DIR (the
# trace-events-demo builds, one per backend set: trace-events-demo-log,
# -simple, -ftrace, -syslog, -nop, -all), DEMO_SRC (its sources, with
# trace-events) and TRACETOOL (qtrace-tracetool).

# demo SET ARGS...: run the demo built for backend set SET in $WORK,
# stdout to $WORK/out, stderr to $WORK/err; sets RC and PID.
demo() {
    set_=$1
    shift
    (cd "$WORK" && exec "$DEMO_DIR/trace-events-demo-$set_" "$@") \
        > "$WORK/out" 2> "$WORK/err" &
    PID=$!
    wait "$PID"
    RC=$?
}

# The demo's own echo of what it traced, in simpletrace.py's style
# ("name pid=PID arg=0xHEX str=text"): the format words of the demo's
# trace-events are its argument names, values are decimal or 0x hex.
echo_as_simple() {
    python3 - "$1" "$2" <<'PY'
import sys
pid = sys.argv[2]
for line in open(sys.argv[1]):
    words = line.split()
    name, rest, out = words[0], words[1:], [words[0], 'pid=' + pid]
    if name == 'demo_done':
        rest = []
    if name == 'demo_cpu':
        out.append('__cpu=' + rest[0].split('=', 1)[1])
        rest = rest[1:]
    for key, val in zip(rest[::2], rest[1::2]):
        if val.startswith('0x'):
            out.append('%s=0x%x' % (key, int(val, 16)))
        elif val.lstrip('-').isdigit():
            out.append('%s=0x%x' % (key, int(val) & (2**64 - 1)))
        else:
            out.append('%s=%s' % (key, val))
    print(' '.join(out))
PY
}
