#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input to the tracing tools gets one line naming what was wrong and a
# failure status: qtrace-tracetool on a trace-events file with an unknown
# type, a format that does not fit its arguments, a duplicate event, the
# tcg property, an unknown backend, a format whose backend is not chosen,
# stap without --binary, or an event with more arguments than LTTng
# takes; trace-events-demo with a --trace events file that does not
# exist or an unknown --trace key.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace-lib.sh"

# tool_err NAME EXPECTED_LINE TEXT [OPTIONS]: run the tracetool on TEXT.
tool_err() {
    name=$1
    want=$2
    printf '%s\n' "$3" > "$WORK/te"
    shift 3
    "$TRACETOOL" --backends="${BACKENDS:-log}" --format=h "$@" "$WORK/te" \
        "$WORK/out.h" > "$WORK/o" 2> "$WORK/e"
    rc=$?
    check_eq "$name: status" 1 "$rc"
    check_eq "$name: message" "$want" "$(cat "$WORK/e")"
    check_eq "$name: no output" no \
        "$([ -e "$WORK/out.h" ] && echo yes || echo no)"
}

tool_err "unknown type" \
    "qtrace-tracetool: $WORK/te:2:12: unknown type 'float' for argument 'f' (standard C and fixed-size integer types only; other pointers are 'void *')" \
    "ok(int a) \"a %d\"
bad(int a, float f) \"a %d f %d\""
tool_err "struct pointer" \
    "qtrace-tracetool: $WORK/te:1:3: unknown type 'struct s *' for argument 'p' (standard C and fixed-size integer types only; other pointers are 'void *')" \
    "e(struct s *p) \"p %p\""
tool_err "string format for an integer" \
    "qtrace-tracetool: $WORK/te:1:26: e: conversion %s for argument 'n' (uint32_t): %s needs a 'const char *' argument" \
    "e(uint32_t n, bool b)    \"n %s b %d\""
tool_err "32-bit format for a 64-bit argument" \
    "qtrace-tracetool: $WORK/te:1:15: e: conversion %x for argument 'v' (uint64_t): 64-bit argument needs a 64-bit conversion (PRIx64, %lx, %zu...)" \
    "e(uint64_t v) \"v 0x%x\""
tool_err "an argument without conversion" \
    "qtrace-tracetool: $WORK/te:1:25: e: no conversion for argument 'b'" \
    "e(int a, const char *b) \"a %d\""
tool_err "more conversions than arguments" \
    "qtrace-tracetool: $WORK/te:1:10: e: more conversions than arguments" \
    "e(int a) \"a %d %d\""
tool_err "duplicate event" \
    "qtrace-tracetool: $WORK/te:3:1: duplicate event 'ev'" \
    "ev(int a) \"a %d\"
# the same name again
ev(int b) \"b %d\""
tool_err "tcg property" \
    "qtrace-tracetool: $WORK/te:1:1: property 'tcg' needs QEMU's code generator: outside QEMU, trace at run time with a plain event" \
    "tcg e(int a) \"a %d\", \"a %d\""
tool_err "unknown backend" \
    "qtrace-tracetool: --backends=log,lttng: unknown backend 'lttng' (known: nop, log, simple, ftrace, syslog, ust, dtrace)" \
    "e(int a) \"a %d\"" --backends=log,lttng
tool_err "ust: more arguments than LTTng takes" \
    "qtrace-tracetool: $WORK/te:2:1: big: 11 arguments, the ust backend takes at most 10 (LTTng's TP_ARGS)" \
    "ok(int a) \"a %d\"
big(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, int k) \"%d %d %d %d %d %d %d %d %d %d %d\"" \
    --backends=log,ust
tool_err "ust: the vcpu argument counts" \
    "qtrace-tracetool: $WORK/te:1:1: v: 11 arguments, the ust backend takes at most 10 (LTTng's TP_ARGS)" \
    "vcpu v(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j) \"%d %d %d %d %d %d %d %d %d %d\"" \
    --backends=ust
tool_err "format d needs dtrace" \
    "qtrace-tracetool: --format=d: needs the dtrace backend in --backends" \
    "e(int a) \"a %d\"" --format=d
tool_err "format ust-events-h needs ust" \
    "qtrace-tracetool: --format=ust-events-h: needs the ust backend in --backends" \
    "e(int a) \"a %d\"" --backends=log,dtrace --format=ust-events-h
tool_err "format stap needs --binary" \
    "qtrace-tracetool: --format=stap: needs --binary=PATH, the program the probes are in" \
    "e(int a) \"a %d\"" --backends=dtrace --format=stap
tool_err "unknown format" \
    "qtrace-tracetool: --format=ust: unknown format (known: h, c, ust-events-h, d, stap)" \
    "e(int a) \"a %d\"" --backends=ust --format=ust

# qtrace tracetool is the same tool.
"$QTRACE" tracetool --backends=bogus --format=h "$WORK/te" "$WORK/out.h" \
    2> "$WORK/e"
check_eq "qtrace tracetool: status" 1 "$?"
check_eq "qtrace tracetool: message" \
    "qtrace-tracetool: --backends=bogus: unknown backend 'bogus' (known: nop, log, simple, ftrace, syslog, ust, dtrace)" \
    "$(cat "$WORK/e")"

# The runtime: an events file that is not there, an unknown --trace key.
demo log --trace "events=$WORK/nope"
check_eq "--trace events=missing: status" 1 "$RC"
check_eq "--trace events=missing: message" \
    "qtrace-trace: events=$WORK/nope: No such file or directory" \
    "$(cat "$WORK/err")"
check_eq "--trace events=missing: nothing traced" "" "$(cat "$WORK/out")"
QTRACE_TRACE="demo_*;events=$WORK/nope" demo log
check_eq "QTRACE_TRACE events=missing: status" 1 "$RC"
check_eq "QTRACE_TRACE events=missing: message" \
    "qtrace-trace: events=$WORK/nope: No such file or directory" \
    "$(cat "$WORK/err")"
demo log --trace "demo_*,output=x"
check_eq "--trace unknown key: status" 1 "$RC"
check_eq "--trace unknown key: message" \
    "qtrace-trace: --trace output=x: unknown key 'output' (known: enable, events, file)" \
    "$(cat "$WORK/err")"
demo log --msg timestamps=off
check_eq "--msg unknown: status" 2 "$RC"
check_eq "--msg unknown: message" \
    "qtrace-trace: -msg timestamps=off: expected timestamp=on or timestamp=off" \
    "$(cat "$WORK/err")"
QTRACE_MSG=timestamp=maybe demo log
check_eq "QTRACE_MSG unknown: status" 1 "$RC"
check_eq "QTRACE_MSG unknown: message" \
    "qtrace-trace: -msg timestamp=maybe: expected timestamp=on or timestamp=off" \
    "$(cat "$WORK/err")"
demo log --trace no_such_event --msg timestamp=off
check_eq "--trace with a name no event has: warned, runs" \
    "0 qtrace-trace: trace event 'no_such_event' does not exist" \
    "$RC $(cat "$WORK/err")"
finish
