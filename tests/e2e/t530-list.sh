#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace list against the trace-events source read here with awk: every
# event in order with its default (on, or off for "disable"), its
# arguments, and the comment above it; the catalog of a recorded trace
# with the events it holds (RECORDED), and -e selecting events. A plugin
# whose symbol table was stripped has no catalog to list: one line.
ARCH=$1
. "$(dirname "$0")/lib.sh"
[ -r "$TRACE_EVENTS" ] || skip "TRACE_EVENTS not readable: '$TRACE_EVENTS'"

# The source: "name on|off" per declaration, in order.
awk '/^[ \t]*(#|$)/ { next }
     { off = ($1 == "disable"); decl = off ? $2 : $1
       sub(/\(.*/, "", decl); print decl, off ? "off" : "on" }' \
    "$TRACE_EVENTS" > "$WORK/want"

"$QTRACE" list > "$WORK/out" 2> "$WORK/err"
check_eq "list: status" 0 "$?"
check_eq "list: stderr empty" 0 "$(wc -c < "$WORK/err")"
check_eq "list: header" "EVENT DEFAULT ARGUMENTS" \
    "$(head -1 "$WORK/out" | tr -s ' ')"
awk 'NR > 1 && /^[^ ]/ { print $1, $2 }' "$WORK/out" > "$WORK/got"
check_eq "list: events and defaults as in trace-events" \
    "$(cat "$WORK/want")" "$(cat "$WORK/got")"

# mem_access: arguments as declared, and its comment's first line.
decl=$(grep -E '^(disable )?mem_access\(' "$TRACE_EVENTS")
args=$(printf '%s\n' "$decl" | sed 's/^[^(]*(\([^)]*\)).*/\1/')
check_eq "list: mem_access arguments" "$args" \
    "$(awk '$1 == "mem_access" { $1 = ""; $2 = ""; sub(/^  /, ""); print }' \
       "$WORK/out")"
comment=$(awk '/^# / { c = c ? c : $0; next } /^$/ { c = ""; next }
               /mem_access\(/ { print c; exit } { c = "" }' "$TRACE_EVENTS" |
          sed 's/^# //')
check_eq "list: mem_access description" "    $comment" \
    "$(awk '$1 == "mem_access" { getline; print; exit }' "$WORK/out")"

"$QTRACE" list --brief -e 'exec_*' > "$WORK/out"
check_eq "list -b -e exec_*: only the exec events, one line each" \
    "$(grep -E '^exec_' "$WORK/want" | cut -d' ' -f1)" \
    "$(awk 'NR > 1 { print $1 }' "$WORK/out")"

# A trace's own catalog: RECORDED says which events the run selected.
use_guest asm "$ARCH"
T="$WORK/t.qtr"
"$QTRACE" record -q -e exec_tb -o "$T" -- "$GUEST" > /dev/null 2>&1
"$QTRACE" list -b "$T" > "$WORK/out" 2> "$WORK/err"
check_eq "list FILE: status" 0 "$?"
check_eq "list FILE: exec_tb recorded" yes \
    "$(awk '$1 == "exec_tb" { print $3 }' "$WORK/out")"
check_eq "list FILE: mem_access not recorded" no \
    "$(awk '$1 == "mem_access" { print $3 }' "$WORK/out")"

"$QTRACE" list "$WORK/no-such.qtr" > "$WORK/out" 2> "$WORK/err"
check_eq "list missing FILE: status" 1 "$?"

if command -v strip >/dev/null 2>&1; then
    strip -o "$WORK/libqtrace.so" "$QTRACE_PLUGIN"
    QTRACE_PLUGIN="$WORK/libqtrace.so" "$QTRACE" list \
        > "$WORK/out" 2> "$WORK/err"
    check_eq "stripped plugin: status" 1 "$?"
    check_eq "stripped plugin: message" \
        "qtrace list: $WORK/libqtrace.so: no symbol qtrace_catalog_text (symbol table stripped?)" \
        "$(cat "$WORK/err")"
fi
finish
