#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Building a program as a user of qtrace would: trace-events-demo's own
# Makefile, with qtrace-tracetool and pkg-config qtrace-trace (the build
# tree's uninstalled .pc), under -Wall -Wextra -Werror, gives a program
# whose log lines are what it echoed. What trace.h compiles to is read
# back with nm: the nop build and "disable" events leave no out-of-line
# trace call behind. qtrace tracetool writes what qtrace-tracetool writes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace-lib.sh"

command -v make > /dev/null || skip "make not installed"
command -v pkg-config > /dev/null || skip "pkg-config not installed"
command -v nm > /dev/null || skip "nm not installed (binutils)"

# A sanitizer build of the library needs the program built the same way.
libdir=$(PKG_CONFIG_PATH="$PKG_CONFIG_UNINSTALLED" \
    pkg-config --libs-only-L qtrace-trace | sed 's/^-L//; s/ .*//')
san=
if readelf -d "$libdir/libqtrace-trace.so" 2>/dev/null | grep -q libasan; then
    san="-fsanitize=address,undefined"
fi

mkdir "$WORK/src"
cp "$DEMO_SRC/demo.c" "$DEMO_SRC/trace-events" "$DEMO_SRC/Makefile" \
    "$WORK/src/"
PKG_CONFIG_PATH="$PKG_CONFIG_UNINSTALLED" make -s -C "$WORK/src" \
    TRACETOOL="$TRACETOOL" TRACE_BACKENDS=log,simple \
    CFLAGS="-O2 -std=c11 -Wall -Wextra -Werror $san" LDFLAGS="$san" \
    > "$WORK/make.out" 2>&1
check_eq "make with pkg-config qtrace-trace: status" 0 "$?"
[ "$n_fail" -eq 0 ] || { cat "$WORK/make.out"; finish; }

(cd "$WORK" && LD_LIBRARY_PATH="$libdir" "$WORK/src/trace-events-demo" \
    --trace "demo_*,file=$WORK/st" --msg timestamp=off) \
    > "$WORK/out" 2> "$WORK/err"
check_eq "user build: status" 0 "$?"
check_eq "user build: log lines = its echo" "$(cat "$WORK/out")" \
    "$(cat "$WORK/err")"
check_eq "user build: simple file written" yes \
    "$([ -s "$WORK/st" ] && echo yes)"

# The same Makefile with ust and dtrace, where their packages are: the
# provider header is made and found, the probes are in the program.
have_sdt=$(printf '#include <sys/sdt.h>\n' | ${CC:-cc} -E - > /dev/null 2>&1 &&
    echo yes)
if pkg-config --exists lttng-ust && [ "$have_sdt" = yes ]; then
    make -s -C "$WORK/src" clean
    PKG_CONFIG_PATH="$PKG_CONFIG_UNINSTALLED" make -s -C "$WORK/src" \
        TRACETOOL="$TRACETOOL" TRACE_BACKENDS=log,ust,dtrace \
        CFLAGS="-O2 -std=c11 -Wall -Wextra -Werror $san" LDFLAGS="$san" \
        > "$WORK/make.out" 2>&1
    check_eq "make TRACE_BACKENDS=log,ust,dtrace: status" 0 "$?"
    (cd "$WORK" && LD_LIBRARY_PATH="$libdir" "$WORK/src/trace-events-demo" \
        --trace "demo_*" --msg timestamp=off) > "$WORK/out" 2> "$WORK/err"
    check_eq "log,ust,dtrace user build: log lines = its echo" \
        "$(cat "$WORK/out")" "$(cat "$WORK/err")"
    check_eq "log,ust,dtrace user build: sdt probes" 6 \
        "$(readelf -n "$WORK/src/trace-events-demo" | grep -c 'Provider: demo')"
fi

# nm: what the generated code left in each build.
nm "$DEMO_DIR/trace-events-demo-nop" > "$WORK/nm.nop"
check_eq "nop: no trace call compiled" 0 \
    "$(grep -c '_nocheck__trace_' "$WORK/nm.nop")"
check_eq "nop: no backend referenced" 0 \
    "$(grep -Ec 'qtrace_trace_log|qtrace_st_' "$WORK/nm.nop")"
nm "$DEMO_DIR/trace-events-demo-all" > "$WORK/nm.all"
check_eq "all: one trace function per live event" 6 \
    "$(grep -c ' T _nocheck__trace_demo_' "$WORK/nm.all")"
check_eq "all: none for the 'disable' event" 0 \
    "$(grep -c '_nocheck__trace_demo_hot' "$WORK/nm.all")"

# qtrace tracetool is qtrace-tracetool.
mkdir "$WORK/a" "$WORK/b"
"$TRACETOOL" --backends=log --format=c "$DEMO_SRC/trace-events" \
    "$WORK/a/trace.c"
"$QTRACE" tracetool --backends=log --format=c "$DEMO_SRC/trace-events" \
    "$WORK/b/trace.c"
check_eq "qtrace tracetool = qtrace-tracetool" same \
    "$(cmp -s "$WORK/a/trace.c" "$WORK/b/trace.c" && echo same)"
finish
