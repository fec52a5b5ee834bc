#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backend=dtrace carries an instrumentation library's own events as the
# plugin's SDT probe qtrace:lib_event (name, text, number of values,
# values): the sampler example on the assembly guest of ARCH fires it
# for every block and for exit_group. readelf shows the probe with its
# four arguments; bpftrace, where it can attach, counts the firings per
# name and sums the samples' blocks field (values[2]), which by
# construction is 1 + 2 + ... + B for B executed blocks.
ARCH=$1
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/bpf-lib.sh
. "$(dirname "$0")/bpf-lib.sh"
. "$(dirname "$0")/backends-lib.sh"
case ",$PLUGIN_PROBES," in
*,dtrace,*) ;;
*) skip "libqtrace.so built without SDT probes (no sys/sdt.h, systemtap-sdt-dev, when configuring)" ;;
esac
use_guest asm "$ARCH"
[ -n "${INSTR_EXAMPLES:-}" ] || skip "INSTR_EXAMPLES not set"
command -v readelf > /dev/null || skip "readelf not installed (binutils)"
SAMPLER="$INSTR_EXAMPLES/libqtrace-instr-sampler.so"
L=$QTRACE_PLUGIN
BLOCKS=$(expect_get blocks | tr ',' '\n' | awk -F: '{ n += $2 } END { print n }')

check_eq "readelf: qtrace:lib_event, name text count values" \
    "8@ 8@ 4@ 8@" \
    "$(readelf -n "$L" | awk '/Provider:/ { p = $2 } /Name:/ { n = $2 }
        /Arguments:/ && p == "qtrace" && n == "lib_event" {
            for (i = 2; i <= NF; i++) { sub(/@.*/, "@", $i); printf "%s%s", s, $i; s = " " } }')"

command -v bpftrace > /dev/null || { echo "NOTE bpftrace not installed"; finish; }
prog="BEGIN { printf(\"ready\\n\"); }
    usdt:$L:qtrace:lib_event { @ev[str(arg0)] = count();
        if (str(arg0) == \"sampler:sample\") {
            @blocks = sum(*(uint64 *)(arg3 + 16)); @n = sum(arg2); } }"
bpf_start "$prog" || bpf_give_up
run_plugin "out=t.qtr,backend=dtrace,instr=$SAMPLER,instr-arg=every=1" \
    "$GUEST"
kill -INT "$BPF"
wait "$BPF"
check_eq "bpftrace: asm guest exit status" "$(expect_get exit)" "$RC"
map() { sed -n "s/^@$1: //p" "$WORK/bpf"; }
check_eq "bpftrace: sampler:sample fired once per block" "$BLOCKS" \
    "$(map 'ev\[sampler:sample\]')"
check_eq "bpftrace: sampler:syscall fired for exit_group" 1 \
    "$(map 'ev\[sampler:syscall\]')"
check_eq "bpftrace: 3 values each" "$((3 * BLOCKS))" "$(map n)"
check_eq "bpftrace: blocks fields 1 + 2 + ... + $BLOCKS" \
    "$((BLOCKS * (BLOCKS + 1) / 2))" "$(map blocks)"
finish
