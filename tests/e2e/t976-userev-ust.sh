#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backend=ust carries an instrumentation library's own events as the
# plugin's tracepoint qtrace:lib_event (their tracepoints cannot be
# generated when qtrace is built): the sampler example on the assembly
# guest of ARCH writes sampler:sample per block and sampler:syscall for
# exit_group. babeltrace2 must read back, from an LTTng session, one
# qtrace:lib_event per record of the native trace of the same run, with
# the event's name, qtrace dump's text and the arguments in order.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/backends-lib.sh"
use_guest asm "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
case ",$PLUGIN_PROBES," in
*,ust,*) ;;
*) skip "libqtrace.so built without LTTng-UST (no liblttng-ust-dev when configuring)" ;;
esac
. "$(dirname "$0")/lttng-lib.sh"
SAMPLER="$INSTR_EXAMPLES/libqtrace-instr-sampler.so"

lttng_start 'qtrace:lib_event'
check_eq "session started" 0 "$?"
run_plugin "out=t.qtr,backend=ust,instr=$SAMPLER,instr-arg=every=1" \
    "$GUEST"
lttng_stop
check_eq "babeltrace2 reads the session" "0 " "$? $(head -1 "$WORK/bt2.err")"
check_eq "asm guest exit status" "$(expect_get exit)" "$RC"

# "NAME TEXT | V0 V1 ..." from babeltrace2's lines and from qtrace dump
# (the values there: the decimal of each field the text shows).
python3 - "$WORK/bt2" > "$WORK/got" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.search(r' qtrace:lib_event: \{[^}]*\}, \{ name = "([^"]*)", '
                  r'text = "([^"]*)", _values_length = \d+, '
                  r'values = \[ ?(.*?) ?\] \}$', line)
    if m:
        vals = re.findall(r'\[\d+\] = (\d+)', m.group(3))
        print(m.group(1), m.group(2), '|', *vals)
PY
"$QTRACE" dump "$WORK/t.qtr" | awk '$3 ~ /^sampler:/' | python3 -c '
import sys
for line in sys.stdin:
    w = line.split()
    print(w[2], " ".join(w[3:]), "|",
          *[str(int(v, 0)) for v in w[4::2]])
' > "$WORK/want"
# By construction: one sample per executed block, one exit_group.
BLOCKS=$(expect_get blocks | tr ',' '\n' | awk -F: '{ n += $2 } END { print n }')
check_eq "one qtrace:lib_event per block and one for exit_group" \
    "$((BLOCKS + 1)) $((BLOCKS + 1))" \
    "$(($(wc -l < "$WORK/got"))) $(($(wc -l < "$WORK/want")))"
check_same "babeltrace2's lib_event = native dump's library events" \
    "$WORK/want" "$WORK/got"
finish
