#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The qemu-instr proposal's example library (examples/instrument/
# qi-proposal-example.c) builds against include/qemu-instr/ with nothing but
# the include path set, warnings as errors, with gcc and clang where
# installed (C11 and GNU dialects), into a shared object that exports
# qi_init and qi_fini and leaves the qi_* calls for libqtrace.so.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SRC="$TOP/examples/instrument/qi-proposal-example.c"
ran=0
CALLS="qi_ctrl_event_set qi_event_guest_cpu_enter_trace \
qi_event_guest_mem_before_exec_trace qi_event_guest_mem_before_trans_gen_exec \
qi_event_guest_mem_before_trans_trace qi_trace_event_set_state_dynamic "

for cc in gcc clang; do
    command -v "$cc" > /dev/null 2>&1 || { echo "SKIP $cc: not installed"; continue; }
    ran=1
    for std in c11 gnu11; do
        "$cc" -std=$std -Wall -Wextra -Werror -O2 -fPIC -shared \
            -I"$TOP/include" -o "$WORK/ex.so" "$SRC" > "$WORK/cc.err" 2>&1
        rc=$?
        check_eq "$cc -std=$std -Wall -Wextra -Werror" 0 "$rc"
        [ "$rc" -eq 0 ] || sed 's/^/    /' "$WORK/cc.err" | head -10
    done
    check_eq "$cc: exports qi_init and qi_fini" "qi_fini qi_init" \
        "$(nm -D --defined-only "$WORK/ex.so" | awk '$3 ~ /^qi_/ { print $3 }' |
           sort | tr '\n' ' ' | sed 's/ $//')"
    # The calls the example's source makes.
    check_eq "$cc: qi_* calls left to libqtrace.so" "$CALLS" \
        "$(nm -D --undefined-only "$WORK/ex.so" |
           awk '$2 ~ /^qi_/ { print $2 }' | sort | tr '\n' ' ')"
done
[ "$ran" -eq 1 ] || skip "no C compiler"
finish
