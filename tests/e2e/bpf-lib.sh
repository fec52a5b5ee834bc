# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# bpftrace for the dtrace tests, sourced after lib.sh.

# bpf_start PROGRAM [BPFTRACE-OPTIONS...]: run bpftrace on PROGRAM, whose
# BEGIN prints "ready" once every probe is attached, into $WORK/bpf
# ($WORK/bpf.err), for at most 60 s; sets BPF (its pid) and waits up to
# 30 s for "ready". Returns 1 when it did not come: bpf_why then says why.
bpf_start() {
    bs_prog=$1
    shift
    timeout 60 bpftrace "$@" -e "$bs_prog" > "$WORK/bpf" \
        2> "$WORK/bpf.err" &
    BPF=$!
    bs_i=0
    while ! grep -q '^ready' "$WORK/bpf" && kill -0 "$BPF" 2> /dev/null &&
        [ $bs_i -lt 300 ]; do
        sleep 0.1
        bs_i=$((bs_i + 1))
    done
    grep -q '^ready' "$WORK/bpf"
}

# bpf_why: the first line of bpftrace's complaint (not its RLIMIT notes).
bpf_why() {
    grep -v RLIMIT "$WORK/bpf.err" | grep -m1 .
}

# bpf_give_up: after a bpf_start that failed, stop bpftrace and
# end the test: a program bpftrace refuses (a line from stdin) fails it,
# a machine where it cannot attach only notes it.
bpf_give_up() {
    kill "$BPF" 2> /dev/null
    wait "$BPF"
    bg_why=$(bpf_why)
    case $bg_why in
    stdin:*) fail "bpftrace refuses the program: $bg_why" ;;
    *) echo "NOTE bpftrace cannot attach here: $bg_why" ;;
    esac
    finish
}
