#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backend=dtrace: libqtrace.so carries one SDT probe (a stapsdt note,
# provider "qtrace") per event of trace-events, each with a semaphore and
# with as many arguments as the event, sized and signed as trace-events
# types them (a table here, not the generator's). With bpftrace attached
# to the library, the syscalls guest's run fires the syscall probe for
# each system call the guest makes by construction, and as many syscall
# and exec_tb probes as the native trace of the same run has records.
# Where bpftrace cannot attach (no BPF or uprobes here), it says so and
# the rest stands.
ARCH=$1
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/bpf-lib.sh
. "$(dirname "$0")/bpf-lib.sh"
. "$(dirname "$0")/backends-lib.sh"
case ",$PLUGIN_PROBES," in
*,dtrace,*) ;;
*) skip "libqtrace.so built without SDT probes (no sys/sdt.h, systemtap-sdt-dev, when configuring)" ;;
esac
use_guest syscalls "$ARCH"
syscall_numbers
command -v readelf > /dev/null || skip "readelf not installed (binutils)"
command -v python3 > /dev/null || skip "python3 not installed"

# "name size@ size@ ..." per event of trace-events, sdt's argument sizes
# (negative: signed; pointers 8 on a 64-bit host), and lib_event.
expected_probes() {
    python3 - "$TRACE_EVENTS" <<'PY'
import re, sys
size = {'uint64_t': 8, 'uint32_t': 4, 'uint16_t': 2, 'uint8_t': 1,
        'int64_t': -8, 'int32_t': -4, 'int16_t': -2, 'int8_t': -1,
        'bool': 1}
for line in open(sys.argv[1]):
    m = re.match(r'(disable )?(\w+)\((.*)\) "', line)
    if not m:
        continue
    sizes = []
    for a in m.group(3).split(','):
        t = a.strip().rsplit(None, 1)[0]
        sizes.append(8 if '*' in a else size[t])
    print(m.group(2), ' '.join('%d@' % s for s in sizes))
# Instrumentation libraries' own events: name, text, count, values.
print('lib_event 8@ 8@ 4@ 8@')
PY
}

# The same from readelf -n: provider qtrace's notes.
readelf_probes() {
    readelf -n "$1" | python3 -c '
import re, sys
prov = name = None
for line in sys.stdin:
    line = line.strip()
    if line.startswith("Provider:"):
        prov = line.split()[1]
    elif line.startswith("Name:"):
        name = line.split()[1]
    elif line.startswith("Location:") and prov == "qtrace":
        sema = re.search(r"Semaphore: (0x[0-9a-f]+)", line)
        if not sema or int(sema.group(1), 16) == 0:
            print(name, "NO-SEMAPHORE")
    elif line.startswith("Arguments:") and prov == "qtrace":
        print(name, " ".join(re.findall(r"(-?\d+@)\S+", line)))
' | sort
}

expected_probes | sort > "$WORK/want"
readelf_probes "$QTRACE_PLUGIN" > "$WORK/got"
readelf -n "$QTRACE_PLUGIN" |
    awk '/Provider:/ { p = $2 } /Name:/ && p == "qtrace" { print $2 }' |
    sort > "$WORK/names"
check_eq "one stapsdt note per event of trace-events, lib_event" \
    "$(cut -d' ' -f1 "$WORK/want" | tr '\n' ' ')" \
    "$(tr '\n' ' ' < "$WORK/names")"
check_same "argument counts and sizes as trace-events types them" \
    "$WORK/want" "$WORK/got"
check_eq "every probe has a semaphore" 0 \
    "$(grep -c NO-SEMAPHORE "$WORK/got")"

# No tracer attached: the probes are nops and the run is as usual.
run_plugin "out=t.qtr,events=syscall*,backend=dtrace" "$GUEST"
check_eq "no tracer: syscalls guest exit status" 3 "$RC"
check_eq "no tracer: nothing on stderr" "" "$(cat "$WORK/err")"

command -v bpftrace > /dev/null || { echo "NOTE bpftrace not installed"; finish; }
L=$QTRACE_PLUGIN
# A probe on the library's file fires in any process that maps it, so
# it is in place before QEMU loads the plugin; bpftrace prints its maps
# ("@sys[NUM]: COUNT") when it stops.
prog="BEGIN { printf(\"ready\\n\"); }
    usdt:$L:qtrace:syscall { @sys[arg0] = count(); @all = count(); }
    usdt:$L:qtrace:exec_tb { @tb = count(); }"
bpf_start "$prog" || bpf_give_up
run_plugin "out=t.qtr,events=exec_tb;syscall*,backend=dtrace" "$GUEST"
kill -INT "$BPF"
wait "$BPF"
check_eq "bpftrace: syscalls guest exit status" 3 "$RC"
# map NAME: a count bpftrace printed ("@NAME: N"; NAME a sed regex).
map() {
    sed -n "s/^@$1: //p" "$WORK/bpf"
}
check_eq "bpftrace: getpid probes (the guest makes 7)" 7 \
    "$(map "sys\\[$GETPID\\]")"
check_eq "bpftrace: getppid probes (the guest makes 3)" 3 \
    "$(map "sys\\[$GETPPID\\]")"
check_eq "bpftrace: syscall probes = the native trace's records" \
    "$(info_count "$WORK/t.qtr" syscall)" "$(map all)"
check_eq "bpftrace: exec_tb probes = the native trace's records" \
    "$(info_count "$WORK/t.qtr" exec_tb)" "$(map tb)"
finish
