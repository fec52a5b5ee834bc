#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The ust backend on LTTng-UST: while trace-events-demo-ust runs,
# "lttng list -u" shows its provider 'demo' with every event that is not
# "disable"; in a session with demo:* enabled, babeltrace2 reads back one
# event per trace call with every field equal to what the demo echoed
# (strings quoted, pointers in hex, signed values negative), and the
# trace's CTF metadata types each field as trace-events does (a table
# of the C types here, not the generator's). The
# log,ust,dtrace build sends each event to each backend whose switch is
# on: --trace for log, lttng enable-event for ust. Uses a running
# session daemon, or starts one in a private LTTNG_HOME and stops it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace-lib.sh"

[ -x "$DEMO_DIR/trace-events-demo-ust" ] ||
    skip "trace-events-demo-ust not built (no liblttng-ust-dev when configuring)"
. "$(dirname "$0")/lttng-lib.sh"

# The events of trace-events that are not "disable", from the file itself.
live_events() {
    sed -n 's/^\([a-z][a-z_ ]*\)(.*/\1/p' "$DEMO_SRC/trace-events" |
        awk '$1 != "disable" { print $NF }' | sort
}

# bt2_as_echo FILE: babeltrace2's text as the demo's echo
# ("name key value ..."), keeping how each value was typed: strings
# quoted, integers as printed (the comparison below converts).
bt2_fields() {
    python3 - "$1" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.search(r' demo:(\w+): \{[^}]*\}, \{ ?(.*?) ?\}$', line)
    if not m:
        continue
    out = [m.group(1)]
    for key, val in re.findall(r'(\w+) = ("[^"]*"|[-\w]+)', m.group(2)):
        out += [key, val]
    print(' '.join(out))
PY
}

# same_fields ECHO BT2: each traced call's fields equal, value by value;
# prints the first difference.
same_fields() {
    python3 - "$1" "$2" <<'PY'
import sys
def echo_events(path):
    for line in open(path):
        w = line.split()
        name, rest = w[0], w[1:]
        if name == 'demo_done':
            rest = []
        if name == 'demo_cpu':
            rest = ['__cpu', rest[0].split('=', 1)[1]] + rest[1:]
        yield name, list(zip(rest[::2], rest[1::2]))
def bt2_events(path):
    for line in open(path):
        w = line.split()
        yield w[0], list(zip(w[1::2], w[2::2]))
def norm(key, val, pointer_keys=('buf', '__cpu')):
    if val.startswith('"'):
        return ('str', val.strip('"'))
    if key in pointer_keys and not val.lower().startswith('0x'):
        return ('pointer not in hex', val)
    return ('int', int(val, 0))
a, b = list(echo_events(sys.argv[1])), list(bt2_events(sys.argv[2]))
if len(a) != len(b):
    print('%d events echoed, %d in the trace' % (len(a), len(b)))
    sys.exit(0)
for (na, fa), (nb, fb) in zip(a, b):
    ka = [(k, ('str', v) if k == 'name' else norm(k, v)) for k, v in fa]
    kb = [(k, norm(k, v)) for k, v in fb]
    if na != nb or ka != kb:
        print('echo %s %s != trace %s %s' % (na, ka, nb, kb))
        sys.exit(0)
print('same')
PY
}

# run_traced SET LTTNG_EVENTS ARGS...: the demo in a fresh session with
# LTTNG_EVENTS enabled; babeltrace2's text in $WORK/bt2.
run_traced() {
    set_=$1
    events=$2
    shift 2
    rm -rf "$WORK/trace" "$WORK/go"
    lttng create "$SESSION" --output="$WORK/trace" > /dev/null &&
        lttng enable-event -u -s "$SESSION" "$events" > /dev/null &&
        lttng start "$SESSION" > /dev/null
    check_eq "$set_: session started" 0 "$?"
    (cd "$WORK" && exec "$DEMO_DIR/trace-events-demo-$set_" \
        --wait-file "$WORK/go" "$@") > "$WORK/out" 2> "$WORK/err" &
    PID=$!
    # lttng list -u names the running program's events by pid.
    i=0
    while ! lttng list -u 2> /dev/null | grep -q "PID: $PID " &&
        [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    lttng list -u > "$WORK/list" 2>&1
    touch "$WORK/go"
    wait "$PID"
    RC=$?
    lttng stop "$SESSION" > /dev/null
    lttng destroy "$SESSION" > /dev/null
    babeltrace2 "$WORK/trace" > "$WORK/bt2" 2> "$WORK/bt2.err"
    check_eq "$set_: babeltrace2 reads the trace" "0 " \
        "$? $(head -1 "$WORK/bt2.err")"
    for m in "$WORK"/trace/ust/*/*/*/metadata; do
        babeltrace2 -o ctf-metadata "$(dirname "$m")" > "$WORK/metadata"
    done
}

# field_types: per event "name field:kind ..." from the trace's CTF
# metadata (kind: string, or sSIZE/uSIZE with /16 for hex), and the same
# from trace-events with a table of the C types (expected_types).
field_types() {
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for m in re.finditer(r'name = "demo:(\w+)";.*?fields := struct \{(.*?)\};',
                     text, re.S):
    out = [m.group(1)]
    for f in re.finditer(r'(string|integer \{([^}]*)\})[^;]*? _?(\w+);',
                         m.group(2)):
        if f.group(1) == 'string':
            kind = 'string'
        else:
            attr = dict(re.findall(r'(\w+) = (\w+);', f.group(2)))
            kind = ('s' if attr['signed'] == '1' else 'u') + attr['size']
            kind += '/16' if attr.get('base') in ('16', 'hex', 'x') else ''
        out.append('%s:%s' % (f.group(3), kind))
    print(' '.join(out))
PY
}
expected_types() {
    python3 - "$DEMO_SRC/trace-events" <<'PY'
import re, sys
kind = {'int': 's32', 'unsigned': 'u32', 'uint32_t': 'u32', 'int8_t': 's8',
        'uint64_t': 'u64', 'int64_t': 's64', 'long': 's64', 'size_t': 'u64',
        'bool': 'u8', 'const char *': 'string', 'void *': 'u64/16'}
for line in open(sys.argv[1]):
    m = re.match(r'([a-z ]*?)(\w+)\((.*)\) "', line)
    if not m or 'disable' in m.group(1).split():
        continue
    args = [a.strip() for a in m.group(3).split(',')]
    args = [] if args == ['void'] else args
    out = [m.group(2)] + (['__cpu:u64/16'] if 'vcpu' in m.group(1) else [])
    for a in args:
        t, n = re.match(r'(.*?)\s*(\w+)$', a).groups()
        out.append('%s:%s' % (n, kind[t]))
    print(' '.join(out))
PY
}

run_traced ust 'demo:*' --jobs 3
check_eq "ust: status" 0 "$RC"
check_eq "ust: nothing on stderr" "" "$(cat "$WORK/err")"
# Only this program's section of the listing (other apps may be there).
awk -v pid="$PID" '/PID: / { mine = index($0, "PID: " pid " ") > 0 }
    mine && /demo:/ { sub(/^ */, ""); sub(/ .*/, ""); sub(/^demo:/, "");
                      print }' "$WORK/list" | sort > "$WORK/listed"
check_eq "lttng list -u: the live events of trace-events" \
    "$(live_events | tr '\n' ' ')" "$(tr '\n' ' ' < "$WORK/listed")"
bt2_fields "$WORK/bt2" > "$WORK/got"
check_eq "ust: every field as the demo echoed it" same \
    "$(same_fields "$WORK/out" "$WORK/got")"
check_grep "ust: strings are CTF strings" '^demo_start name "demo" jobs 3$' \
    "$WORK/got"
check_grep "ust: pointers in hex" '^demo_buffer buf 0x[0-9A-Fa-f]+ len 64$' \
    "$WORK/got"
check_grep "ust: signed values" '^demo_signed delta -5 big -70000 small -3$' \
    "$WORK/got"
check_eq "ust: CTF field types as trace-events declares them" \
    "$(expected_types | sort)" "$(field_types "$WORK/metadata" | sort)"
check_eq "ust: the 'disable' event is absent" 0 \
    "$(grep -c demo_hot "$WORK/bt2")"

if [ -x "$DEMO_DIR/trace-events-demo-multi" ]; then
    # log gets what --trace enables, LTTng what the session enables.
    run_traced multi 'demo:demo_job' --jobs 2 --trace 'demo_*' \
        --msg timestamp=off
    check_eq "log,ust,dtrace: status" 0 "$RC"
    check_eq "log,ust,dtrace: log lines = the echo" "$(cat "$WORK/out")" \
        "$(cat "$WORK/err")"
    bt2_fields "$WORK/bt2" > "$WORK/got"
    grep '^demo_job ' "$WORK/out" > "$WORK/out.job"
    check_eq "log,ust,dtrace: LTTng got the enabled event only" same \
        "$(same_fields "$WORK/out.job" "$WORK/got")"
fi
finish
