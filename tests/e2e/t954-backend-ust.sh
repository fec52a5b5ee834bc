#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backend=ust: the plugin's events as LTTng-UST tracepoints of provider
# "qtrace", from a plugin that QEMU dlopen()s. While QEMU runs, "lttng
# list -u" shows one tracepoint per event of trace-events (the file
# itself is the reference); in a session with qtrace:* enabled,
# babeltrace2 reads back the syscalls guest's system calls with the
# argument names of trace-events, as many as the guest makes by
# construction, and the same values in the same order as qtrace dump of
# the native trace of that run. The asm guest's block counts come out as
# constructed, and the threads guest runs as it does without LTTng.
# The guest waits for the listing on its /dev/null, a FIFO here that
# QEMU opens through -L.
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/backends-lib.sh"
use_guest syscalls "$ARCH"
syscall_numbers
case ",$PLUGIN_PROBES," in
*,ust,*) ;;
*) skip "libqtrace.so built without LTTng-UST (no liblttng-ust-dev when configuring)" ;;
esac
. "$(dirname "$0")/lttng-lib.sh"

# The events of trace-events, "disable" ones too (off until selected),
# and lib_event, which carries instrumentation libraries' own events.
catalog_events() {
    { sed -n 's/^\([a-z][a-z_ ]*\)(.*/\1/p' "$TRACE_EVENTS" |
          awk '{ print $NF }'
      echo lib_event; } | sort
}

# bt2_events FILE: "name value value ..." per qtrace event babeltrace2
# printed, integers in decimal, strings unquoted; with names=1, "name
# key key ...".
bt2_events() {
    python3 - "$1" "${2:-0}" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.search(r' qtrace:(\w+): \{[^}]*\}, \{ ?(.*?) ?\}$', line)
    if not m:
        continue
    fields = re.findall(r'(\w+) = ("[^"]*"|[-\w]+)', m.group(2))
    if sys.argv[2] == '1':
        print(m.group(1), *[k for k, _ in fields])
    else:
        print(m.group(1), *[v.strip('"') if v.startswith('"')
                            else str(int(v, 0)) for _, v in fields])
PY
}

# dump_events TRACE: the same from qtrace dump ("VCPU TIME name args"),
# the numbers of each line in decimal.
dump_events() {
    "$QTRACE" dump "$1" | python3 -c '
import sys
for line in sys.stdin:
    w = line.split(" | ")[0].split()
    nums = []
    for t in w[3:]:
        try:
            nums.append(str(int(t, 0)))
        except ValueError:
            pass
    print(w[2], *nums)
'
}

# maps_has REGEX: yes if QEMU has a file matching REGEX mapped.
maps_has() {
    if grep -q "$1" "/proc/$QEMU_PID/maps" 2> /dev/null; then
        echo yes
    else
        echo no
    fi
}

# The syscalls guest, stopped on its first read until the listing is
# taken: /dev/null under -L is a FIFO it opens read-write. This shell
# holds it open too, so writing never waits for a QEMU that is gone.
mkdir -p "$WORK/root/dev"
mkfifo "$WORK/root/dev/null"
exec 3<> "$WORK/root/dev/null"
lttng_start 'qtrace:*'
check_eq "session started" 0 "$?"
(cd "$WORK" && exec "qemu-$ARCH" -L "$WORK/root" \
    -plugin "$QTRACE_PLUGIN,out=t.qtr,events=syscall*,backend=ust" \
    "$GUEST") > "$WORK/out" 2> "$WORK/err" &
QEMU_PID=$!
i=0
while ! lttng list -u 2> /dev/null | grep -q "PID: $QEMU_PID " &&
    [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
lttng list -u > "$WORK/list" 2>&1
check_eq "backend=ust loads liblttng-ust into QEMU" yes \
    "$(maps_has 'liblttng-ust\.so')"
# 4 reads of 16 bytes each.
head -c 64 /dev/zero >&3
exec 3>&-
wait "$QEMU_PID"
RC=$?
lttng_stop
check_eq "babeltrace2 reads the session" "0 " "$? $(head -1 "$WORK/bt2.err")"
check_eq "syscalls guest exit status" 3 "$RC"
check_eq "nothing from qtrace or LTTng on stderr" "" "$(cat "$WORK/err")"

awk -v pid="$QEMU_PID" '/PID: / { mine = index($0, "PID: " pid " ") > 0 }
    mine && /qtrace:/ { sub(/^ */, ""); sub(/ .*/, ""); sub(/^qtrace:/, "");
                        print }' "$WORK/list" | sort > "$WORK/listed"
check_eq "lttng list -u while QEMU runs: every event of trace-events, lib_event" \
    "$(catalog_events | tr '\n' ' ')" "$(tr '\n' ' ' < "$WORK/listed")"

bt2_events "$WORK/bt2" 1 | sort -u > "$WORK/names"
python3 - "$TRACE_EVENTS" > "$WORK/names.want" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r'(syscall|syscall_ret)\((.*)\) "', line)
    if m:
        print(m.group(1), *[a.split()[-1] for a in m.group(2).split(',')])
PY
check_eq "fields named as trace-events names the arguments" \
    "$(cat "$WORK/names.want")" "$(cat "$WORK/names")"
bt2_events "$WORK/bt2" > "$WORK/got"
check_eq "getpid calls" 7 "$(grep -c "^syscall $GETPID " "$WORK/got")"
check_eq "getppid calls" 3 "$(grep -c "^syscall $GETPPID " "$WORK/got")"
check_eq "getpid returns QEMU's pid" 7 \
    "$(grep -c "^syscall_ret $GETPID $QEMU_PID$" "$WORK/got")"
check_eq "only the selected events" "" \
    "$(grep -Ev '^syscall(_ret)? ' "$WORK/got")"
dump_events "$WORK/t.qtr" > "$WORK/dump"
check_same "babeltrace2's events = native dump's" "$WORK/dump" "$WORK/got"

# Without backend=ust, QEMU has no liblttng-ust (nor its threads).
exec 3<> "$WORK/root/dev/null"
(cd "$WORK" && exec "qemu-$ARCH" -L "$WORK/root" \
    -plugin "$QTRACE_PLUGIN,out=t.qtr,events=syscall" "$GUEST") \
    > "$WORK/out" 2> "$WORK/err" &
QEMU_PID=$!
i=0
while ! grep -q 'libqtrace\.so' "/proc/$QEMU_PID/maps" 2> /dev/null &&
    [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
sleep 0.2
check_eq "no backend=ust: QEMU maps the plugin, no liblttng-ust" "yes no" \
    "$(maps_has 'libqtrace\.so') $(maps_has 'liblttng-ust\.so')"
head -c 64 /dev/zero >&3
exec 3>&-
wait "$QEMU_PID"

# Blocks: exec_tb per pc as the asm guest is built; its two mappings
# with the guest's path, a string field.
use_guest asm "$ARCH"
lttng_start 'qtrace:exec_tb,qtrace:image_map'
run_plugin "out=t.qtr,events=exec_tb;image_map,backend=ust" "$GUEST"
lttng_stop
check_eq "asm guest exit status" "$(expect_get exit)" "$RC"
bt2_events "$WORK/bt2" > "$WORK/got"
"$QTRACE" dump "$WORK/t.qtr" | awk '$3 == "image_map" { print $NF }' \
    > "$WORK/maps.want"
check_eq "image_map: the guest's file, as in the native trace" \
    "$(cat "$WORK/maps.want")" \
    "$(awk '$1 == "image_map" { print $5 }' "$WORK/got")"
check_eq "image_map: twice, the asm guest's two segments" 2 \
    "$(grep -c "^image_map .* $GUEST$" "$WORK/got")"
grep '^exec_tb ' "$WORK/got" | awk '{ printf "0x%x\n", $2 }' | sort | uniq -c |
    awk '{ print $2, $1 }' | sort > "$WORK/blocks"
expect_blocks > "$WORK/blocks.want"
check_same "exec_tb per block = the guest's construction" \
    "$WORK/blocks.want" "$WORK/blocks"

# liblttng-ust's own threads (started when QEMU loads the plugin) leave
# a threaded guest as it is.
use_guest threads "$ARCH"
(cd "$WORK" && exec "qemu-$ARCH" "$GUEST") > "$WORK/plain" 2>&1
want=$?
lttng_start 'qtrace:*'
run_plugin "out=t.qtr,backend=ust" "$GUEST"
lttng_stop
check_eq "threads guest: status as without the plugin" "$want" "$RC"
check_eq "threads guest: output as without the plugin" \
    "$(cat "$WORK/plain")" "$(cat "$WORK/out" "$WORK/err")"
check_eq "threads guest: exec_tb records = the native trace's" \
    "$(info_count "$WORK/t.qtr" exec_tb)" \
    "$(grep -c ' qtrace:exec_tb:' "$WORK/bt2")"
finish
