#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace names files (META binary=, image_map paths) that the reading
# commands open for symbols. A hostile or stale trace may name a FIFO, a
# device or a file of /proc: opening a FIFO with no writer blocks forever,
# and /dev/zero or /proc/self/mem never end or fault. Each command must
# finish, say why it skipped the file, and still show the records.
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
finish
