#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# System mode on two QEMUs with one plugin build: Debian's
# qemu-system-x86_64 7.2 (API 1) and the 10.0 one that
# scripts/fetch-qemu10.sh unpacks into $QEMU10_DIR (API 2-4). With no
# disk the pc machine's BIOS starts at the reset vector and waits for a
# boot device; after a few seconds SIGTERM must end QEMU cleanly and the
# trace must be complete: header, END chunk, reset vector first, thousands
# of blocks, one stream per vCPU. Usage: t100-system.sh [7.2|10.0|all].
# Without a 10.0 QEMU its part fails when CI=true and is skipped otherwise.
PART=${1:-all}
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
TEST_NAME=t100-system${1:+-$1}

RUN_SECONDS=3       # of BIOS before SIGTERM: millions of blocks
EXIT_SECONDS=30     # allowed between SIGTERM and QEMU's exit
RESET_VECTOR=0xfffffff0
EVENTS='vcpu_*;tb_trans;exec_tb'
QEMU_MACHINE="-display none -nodefaults -machine pc -accel tcg -m 128
-no-reboot"

if [ -z "${QTRACE:-}" ] || [ -z "${QTRACE_PLUGIN:-}" ]; then
    echo "t100-system: QTRACE and QTRACE_PLUGIN must be set (meson test" \
         "sets them)" >&2
    exit 2
fi
case $PART in
    7.2|10.0|all) ;;
    *) echo "usage: t100-system.sh [7.2|10.0|all]" >&2; exit 2 ;;
esac

# Set by use_qemu: the binary and its firmware dir ("" = its built-in one).
QEMU_BIN=
QEMU_FW=

# use_qemu BIN FWDIR: the QEMU the next runs use.
use_qemu() {
    QEMU_BIN=$1
    QEMU_FW=$2
}

# qemu_exec ARGS...: replace the shell with QEMU (so that `qemu_exec &`
# leaves QEMU's own pid in $!), the machine options first.
qemu_exec() {
    # QEMU_MACHINE is a word list: split on purpose.
    if [ -n "$QEMU_FW" ]; then
        # shellcheck disable=SC2086
        exec "$QEMU_BIN" -L "$QEMU_FW/qemu" -L "$QEMU_FW/seabios" \
            $QEMU_MACHINE "$@"
    fi
    # shellcheck disable=SC2086
    exec "$QEMU_BIN" $QEMU_MACHINE "$@"
}

# run_qemu TERM_AFTER ERRFILE ARGS...: run QEMU in the background, send
# it SIGTERM after TERM_AFTER seconds (0: never) and SIGKILL if it is
# still there EXIT_SECONDS later. Sets status to QEMU's exit status.
run_qemu() {
    term_after=$1
    errfile=$2
    shift 2
    qemu_exec "$@" > /dev/null 2> "$errfile" &
    pid=$!
    # The watchdog sleeps a second at a time so that, killed, it leaves
    # no long sleep behind.
    (
        t=0
        while [ "$t" -lt $((term_after + EXIT_SECONDS)) ]; do
            sleep 1
            t=$((t + 1))
            if [ "$t" -eq "$term_after" ]; then
                kill -TERM "$pid"
            fi
        done
        kill -KILL "$pid"
    ) > /dev/null 2>&1 &
    dog=$!
    wait "$pid"
    status=$?
    kill "$dog" 2> /dev/null
    if [ "$status" -eq 137 ] && [ "$term_after" -gt 0 ]; then
        echo "    QEMU still ran $EXIT_SECONDS s after SIGTERM: killed"
    elif [ "$status" -eq 137 ]; then
        echo "    QEMU still ran after $EXIT_SECONDS s: killed"
    fi
}

# info_get FILE KEY: a value from saved `qtrace info` output.
info_get() {
    sed -n "s/^$2: //p" "$1"
}

# boot TAG TRACE ARGS...: the BIOS under the plugin until SIGTERM; checks
# QEMU's side (exit status, the signal seen) and that the trace reads.
# Leaves `qtrace info --per-cpu` output in $WORK/TAG.info; fails (status
# 1) when there is no trace to look at. (Variables are b_*: sh has no
# locals.)
boot() {
    b_tag=$1
    b_trace=$2
    shift 2
    rm -f "$b_trace"
    run_qemu "$RUN_SECONDS" "$WORK/$b_tag.err" \
        -plugin "$QTRACE_PLUGIN,out=$b_trace,events=$EVENTS" "$@"
    # QEMU takes SIGTERM as a shutdown request: cleanup, atexit, exit 0.
    check_eq "$b_tag: QEMU exit status after SIGTERM" 0 "$status"
    check_grep "$b_tag: QEMU saw the SIGTERM" "terminating on signal 15" \
        "$WORK/$b_tag.err"
    if [ ! -s "$b_trace" ]; then
        fail "$b_tag: no trace written"
        sed 's/^/    /' "$WORK/$b_tag.err"
        return 1
    fi
    "$QTRACE" dump "$b_trace" > /dev/null 2> "$WORK/$b_tag.dump.err"
    b_st=$?
    check_eq "$b_tag: qtrace dump status" 0 "$b_st"
    [ "$b_st" -eq 0 ] || sed 's/^/    /' "$WORK/$b_tag.dump.err"
    "$QTRACE" info --per-cpu "$b_trace" > "$WORK/$b_tag.info" 2>&1
    check_eq "$b_tag: qtrace info status" 0 "$?"
    b_end=$(info_get "$WORK/$b_tag.info" end)
    if [ "$b_end" = complete ]; then
        pass "$b_tag: END chunk present (plugin atexit ran on SIGTERM)"
    else
        fail "$b_tag: end: $b_end: the plugin's atexit callback did not" \
             "finish the trace on SIGTERM"
    fi
    check_eq "$b_tag: records lost" 0 "$(info_get "$WORK/$b_tag.info" lost)"
    b_total=$(info_get "$WORK/$b_tag.info" total)
    check_eq "$b_tag: records in END = records read" "${b_total:-?}" \
        "$(info_get "$WORK/$b_tag.info" records)"
}

# check_one TAG API_RE VERSION: one vCPU; the header, the reset vector
# first, thousands of blocks.
check_one() {
    T="$WORK/$1.qtr"
    info="$WORK/$1.info"
    boot "$1" "$T" || return
    check_eq "$1: mode" system "$(info_get "$info" mode)"
    check_eq "$1: arch" x86_64 "$(info_get "$info" arch)"
    check_eq "$1: qemu" "$3" "$(info_get "$info" qemu)"
    api=$(info_get "$info" plugin_api)
    if echo "$api" | grep -Eq "^($2)\$"; then
        pass "$1: plugin_api $api"
    else
        fail "$1: plugin_api: expected $2, got '$api'"
    fi
    check_eq "$1: first block of vCPU 0 (reset vector)" "$RESET_VECTOR" \
        "$("$QTRACE" dump -e exec_tb "$T" 2> /dev/null |
           awk '$1 == 0 { print $5; exit }')"
    check_eq "$1: first translated block" "$RESET_VECTOR" \
        "$("$QTRACE" dump -e tb_trans "$T" 2> /dev/null |
           awk '{ print $5; exit }')"
    n=$(info_count "$T" exec_tb)
    if [ "$n" -ge 1000 ]; then
        pass "$1: $n exec_tb records"
    else
        fail "$1: only $n exec_tb records in $RUN_SECONDS s of BIOS"
    fi
    rm -f "$T"
}

# check_smp2 TAG: two vCPUs. The BIOS wakes the second one to count it,
# so both streams start with vcpu_init and both execute blocks.
check_smp2() {
    T="$WORK/$1.qtr"
    info="$WORK/$1.info"
    boot "$1" "$T" -smp 2 || return
    check_eq "$1: vCPUs with vcpu_init" "0 1" \
        "$("$QTRACE" dump -e vcpu_init "$T" 2> /dev/null |
           awk '{ print $1 }' | sort -u | tr '\n' ' ' | sed 's/ $//')"
    check_eq "$1: vCPU streams" 2 \
        "$(grep -Ec '^vcpu [0-9]+ stream [0-9]+: .*vcpu_init=1' "$info")"
    check_grep "$1: vCPU 1 executes blocks" \
        '^vcpu 1 stream [0-9]+: .*exec_tb=[1-9]' "$info"
    rm -f "$T"
}

# check_counts TAG: counting mode (inline counters: a raw pointer on 7.2,
# scoreboards on 9.0+): tb_count records at exit, the reset vector's block
# counted once per run of it, and the hottest BIOS loop many times.
check_counts() {
    T="$WORK/$1.qtr"
    EVENTS_SAVED=$EVENTS
    EVENTS='tb_count;tb_trans'
    boot "$1" "$T" || { EVENTS=$EVENTS_SAVED; return; }
    EVENTS=$EVENTS_SAVED
    "$QTRACE" dump -e 'tb_trans,tb_count' "$T" 2> /dev/null > "$WORK/$1.txt"
    reset_count=$(awk -v pc="$RESET_VECTOR" '
        $3 == "tb_trans" && $5 == pc { tb[$7] = 1 }
        $3 == "tb_count" && ($5 in tb) { n += $7 }
        END { print n + 0 }' "$WORK/$1.txt")
    check_eq "$1: executions of the reset vector block" 1 "$reset_count"
    hot=$(awk '$3 == "tb_count" && $7 > m { m = $7 } END { print m + 0 }' \
          "$WORK/$1.txt")
    if [ "$hot" -ge 1000 ]; then
        pass "$1: hottest block counted $hot times"
    else
        fail "$1: hottest block counted only $hot times"
    fi
    check_eq "$1: no exec_tb in counting mode" 0 "$(info_count "$T" exec_tb)"
    rm -f "$T"
}

# check_bad_option TAG: an unknown option fails the load with one line of
# ours (QEMU adds its own "Could not load plugin" line).
check_bad_option() {
    run_qemu 0 "$WORK/$1.err" -plugin "$QTRACE_PLUGIN,bogus=1"
    if [ "$status" -ne 0 ] && [ "$status" -ne 137 ]; then
        pass "$1: fails the load (status $status)"
    else
        fail "$1: status $status"
    fi
    check_grep "$1: message" '^qtrace: bogus=1: unknown option' \
        "$WORK/$1.err"
    check_eq "$1: message lines" 1 "$(grep -c '^qtrace:' "$WORK/$1.err")"
}

# check_part TAG API_RE: every check on the QEMU of use_qemu.
check_part() {
    version=$("$QEMU_BIN" --version 2> /dev/null |
              sed -n '1s/^QEMU emulator version //p')
    echo "== $1: $QEMU_BIN ($version)"
    check_one "$1" "$2" "$version"
    check_smp2 "$1-smp2"
    check_counts "$1-counts"
    check_bad_option "$1-bogus"
}

ran=0
if [ "$PART" != 10.0 ]; then
    if command -v qemu-system-x86_64 > /dev/null 2>&1; then
        use_qemu "$(command -v qemu-system-x86_64)" ""
        # 7.2 on bookworm; another release declares its own API range.
        case $("$QEMU_BIN" --version) in
            *"version 7."* | *"version 8."*) check_part 7.2 1 ;;
            *) check_part system '2|3|4|5' ;;
        esac
        ran=1
    elif [ "$PART" = 7.2 ]; then
        skip "qemu-system-x86_64 not installed (Debian package" \
             "qemu-system-x86)"
    else
        echo "SKIP $TEST_NAME 7.2 part: qemu-system-x86_64 not installed" \
             "(Debian package qemu-system-x86)"
    fi
fi

if [ "$PART" != 7.2 ]; then
    Q10="${QEMU10_DIR:+$QEMU10_DIR/root/usr/bin/qemu-system-x86_64}"
    if [ -n "$Q10" ] && [ -x "$Q10" ]; then
        use_qemu "$Q10" "$QEMU10_DIR/root/usr/share"
        check_part 10.0 '2|3|4'
        ran=1
    else
        why="no QEMU 10.0 in QEMU10_DIR='${QEMU10_DIR:-}' (run"
        why="$why scripts/fetch-qemu10.sh DIR, then QEMU10_DIR=DIR)"
        if [ "${CI:-}" = true ]; then
            fail "10.0: $why"
        elif [ "$PART" = 10.0 ]; then
            skip "$why"
        else
            echo "SKIP $TEST_NAME 10.0 part: $why"
        fi
    fi
fi

[ "$ran" -eq 1 ] || [ "$n_fail" -gt 0 ] ||
    skip "no qemu-system-x86_64 7.2 (Debian package qemu-system-x86)" \
         "and no QEMU 10.0 in QEMU10_DIR"
finish
