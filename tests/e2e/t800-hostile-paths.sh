#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace names files (META binary=, image_map paths, and through them
# their debug files) that the reading commands open for symbols. A
# hostile or stale trace may name a FIFO, a device or a file of /proc:
# opening a FIFO with no writer blocks forever, and /dev/zero or
# /proc/self/mem never end or fault. Each command must finish, say why it
# skipped the file, and still show the records.
. "$(dirname "$0")/lib.sh"
[ -x "$MKTRACE" ] || skip "mktrace not built"
command -v timeout > /dev/null 2>&1 || skip "timeout not installed (coreutils)"
CATALOG="$(dirname "$0")/../../trace-events"
FIFO="$WORK/fifo"
mkfifo "$FIFO" || skip "mkfifo failed"

for bad in "$FIFO" /dev/zero /proc/self/mem; do
    name=$(basename "$bad")
    cat > "$WORK/desc" <<DESC
meta format=1
meta arch=x86_64
meta word_bits=64
meta mode=user
meta time=insns
meta binary=$bad
rec 0 1 0 image_map start=0x400000 end=0x401000 offset=0 path=$bad
rec 0 1 10 func_entry pc=0x400100 depth=1
rec 0 1 20 func_exit pc=0x400100 depth=1
DESC
    T="$WORK/$name.qtr"
    "$MKTRACE" "$CATALOG" "$T" < "$WORK/desc"
    check_eq "$name: mktrace status" 0 "$?"
    for cmd in dump "report --functions" replay "convert --to uftrace"; do
        out="$WORK/out"
        rm -rf "$WORK/u"
        case $cmd in
        convert*) set -- $cmd "$T" "$WORK/u" ;;
        *) set -- $cmd "$T" ;;
        esac
        timeout 20 "$QTRACE" "$@" > "$out" 2> "$WORK/err"
        st=$?
        if [ "$st" -eq 124 ]; then
            fail "$name: qtrace $cmd did not finish in 20 s"
            continue
        fi
        check_eq "$name: qtrace $cmd status" 0 "$st"
        check_grep "$name: qtrace $cmd says why it skipped the file" \
            "$bad: (a FIFO|a device|a file of /proc), not read" "$WORK/err"
    done
    timeout 20 "$QTRACE" dump "$T" > "$WORK/dump" 2> /dev/null
    check_grep "$name: dump still shows the call" "func_entry pc 0x400100" \
        "$WORK/dump"
done

# The trace itself a FIFO without a writer: refused at once.
for cmd in dump info "report --functions" replay "convert --to uftrace"; do
    rm -rf "$WORK/u"
    case $cmd in
    convert*) set -- $cmd "$FIFO" "$WORK/u" ;;
    *) set -- $cmd "$FIFO" ;;
    esac
    timeout 5 "$QTRACE" "$@" > /dev/null 2> "$WORK/err"
    check_eq "trace a FIFO: qtrace $cmd status (124: it waited)" 1 "$?"
    check_grep "trace a FIFO: qtrace $cmd says why" \
        "$FIFO: not a regular file" "$WORK/err"
done

# A stripped binary whose debug file, found by its .gnu_debuglink beside
# it or by its build-id under a debug root, is a FIFO: the search skips
# it. A FIFO without a writer blocks whoever opens it without O_NONBLOCK.
GUEST="$GUESTS/calls-x86_64"
if [ -x "$GUEST" ] && command -v objcopy > /dev/null 2>&1 &&
   command -v readelf > /dev/null 2>&1; then
    id=$(readelf -n "$GUEST" | sed -n 's/.*Build ID: *//p')
    mkdir -p "$WORK/bin" "$WORK/root/.build-id/$(echo "$id" | cut -c1-2)"
    objcopy --only-keep-debug "$GUEST" "$WORK/bin/prog.debug"
    objcopy --strip-all --add-gnu-debuglink="$WORK/bin/prog.debug" \
        "$GUEST" "$WORK/bin/prog"
    rm "$WORK/bin/prog.debug"
    mkfifo "$WORK/bin/prog.debug" \
        "$WORK/root/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
    cat > "$WORK/desc" <<DESC
meta format=1
meta arch=x86_64
meta word_bits=64
meta mode=user
meta time=insns
meta binary=$WORK/bin/prog
rec 0 1 0 image_map start=0x400000 end=0x500000 offset=0 path=$WORK/bin/prog
rec 0 1 10 func_entry pc=0x401000 depth=1
rec 0 1 20 func_exit pc=0x401000 depth=1
DESC
    "$MKTRACE" "$CATALOG" "$WORK/dbg.qtr" < "$WORK/desc"
    for search in "" "$WORK/root"; do
        what="debug file a FIFO (by build-id under a root)"
        [ -n "$search" ] || what="debug file a FIFO (by debuglink)"
        for cmd in dump "report --functions" replay "convert --to uftrace"; do
            rm -rf "$WORK/u"
            case $cmd in
            convert*) set -- $cmd "$WORK/dbg.qtr" "$WORK/u" ;;
            *) set -- $cmd "$WORK/dbg.qtr" ;;
            esac
            QTRACE_DEBUGINFO_PATH=$search timeout 5 "$QTRACE" "$@" \
                > /dev/null 2> "$WORK/err"
            st=$?
            [ "$st" -ne 124 ] && pass "$what: qtrace $cmd finishes" ||
                fail "$what: qtrace $cmd did not finish in 5 s"
        done
    done
else
    echo "SKIP part of $TEST_NAME: no calls-x86_64 guest or binutils"
fi
finish
