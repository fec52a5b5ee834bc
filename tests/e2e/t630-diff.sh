#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace diff on guests of ARCH. Where two traces must part is found here
# from their dumps, independently: the lines of the compared events
# (exec_tb, mem_access, syscall, syscall_ret), without what may differ
# between identical runs (translation numbers, and the process and
# thread ids the guest's start-up is given), compared line by line; the
# first line that differs is where diff must say they part, after as
# many records in common as lines before it, with those lines as its
# context.
#   - two runs of the syscalls guest: identical, status 0;
#   - busy 5 against busy 6 (the same program, another argument), over
#     everything and over blocks alone: they part where the dumps do;
#   - two different programs, busy and syscalls: the same;
#   - a trace cut after a chunk (no END, as t820 makes them) against its
#     whole: the cut one ends where its dump ends; against itself:
#     identical; both with the incomplete-trace warning;
#   - streams paired in order: the threaded calls guest against itself
#     (three pairs) and against busy (two streams without a pair);
#   - misuse and trouble: status 2.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest syscalls "$ARCH"
SYSCALLS=$GUEST
use_guest busy "$ARCH"
BUSY=$GUEST
use_guest calls "$ARCH"
CALLS=$GUEST
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
cd "$WORK" || exit 1
EVENTS='vcpu_*,tb_trans,exec_tb,mem_access,syscall*'

# The registers each call these guests make reads (from the calls' Linux
# manual pages; 32-bit arm passes nothing wider here), as an awk table:
# diff compares those and not what is left in the others.
ARGS="brk=1 arch_prctl=2 set_tid_address=1 set_robust_list=2 rseq=4"
ARGS="$ARGS prlimit64=4 readlinkat=4 readlink=3 getrandom=3 mprotect=3"
ARGS="$ARGS newfstatat=4 fstat=2 fstat64=2 fstatat64=4 statx=5 write=3"
ARGS="$ARGS exit_group=1 exit=1 uname=1 getpid=0 getppid=0 getuid=0"
ARGS="$ARGS gettid=0 openat=4 read=3 close=1 lseek=3 _llseek=5 dup=1"
ARGS="$ARGS mmap=6 mmap2=6 munmap=2 ioctl=3 faccessat=3 riscv_hwprobe=5"
ARGS="$ARGS set_tls=1 futex=6 rt_sigaction=4 rt_sigprocmask=4 madvise=3"
ARGS="$ARGS tgkill=3 clone=5 clone3=2 sched_getaffinity=3 getcwd=2"
ARGS="$ARGS ugetrlimit=2"
# MASK_ARGS: awk code; mask(LINE, NAME) blanks, on a syscall line whose
# call is NAME, the arguments the call does not read; clean(LINE) turns a
# line of diff's output into the form of norm's.
MASK_ARGS='function mask(line, name,    f, n, i, k, want) {
    if (line !~ /(^| )syscall num /) return line
    if (!(name in nargs)) { print "no argument count for " name > "/dev/stderr"; return line }
    n = split(line, f, " ")
    for (i = 1; i <= n && f[i] != "args"; i++) ;
    for (k = nargs[name] + 1; k <= 6; k++) f[i + k] = "-"
    line = f[1]; for (k = 2; k <= n; k++) line = line " " f[k]
    return line
}
function clean(s,    name, k, w, id) {
    sub(/^[-+]? */, "", s)
    if (s ~ /^\(end of/) return "END"
    id = s ~ /syscall_ret .*\| (getpid|getppid|gettid|set_tid_address)$/
    k = split(s, w, " "); name = w[k]
    sub(/ \| .*$/, "", s)
    s = mask(s, name)
    if (id) sub(/ ret -?[0-9]+$/, " ret ID", s)
    return s
}
BEGIN { _m = split(ARGS, _a, " "); for (_i = 1; _i <= _m; _i++) {
            split(_a[_i], _kv, "="); nargs[_kv[1]] = _kv[2] } }'

rec() {
    out=$1
    shift
    "$QTRACE" record -q -e "$EVENTS" -o "$out" -- "$@" > /dev/null 2>&1
}

# norm TRACE [EVENTS]: the compared records of dump, one per line,
# "TIME EVENT ARGS", translation numbers and names left out, and no
# value for the calls that return a process or thread id. Times are left
# out too when NOTIME is set: without blocks, diff does not compare them.
norm() {
    "$QTRACE" dump -e "${2:-exec_tb,mem_access,syscall,syscall_ret}" "$1" |
        awk -v notime="$NOTIME" -v ARGS="$ARGS" "$MASK_ARGS"'
          $1 != "-" {
            id = ($3 == "syscall_ret" &&
                  $0 ~ /\| (getpid|getppid|gettid|set_tid_address)$/)
            name = $NF
            sub(/ \| .*$/, ""); sub(/ tb [0-9]+$/, "")
            $0 = mask($0, name)
            if (id) sub(/ ret -?[0-9]+$/, " ret ID")
            $1 = ""; if (notime) $2 = ""; sub(/^ +/, ""); print }'
}

# expect_part A B [EVENTS]: where the normalised dumps part, as
# "N|LINE_A|LINE_B" (N lines in common; END for a dump that ended), or
# "same".
expect_part() {
    norm "$1" "$3" > a.norm
    norm "$2" "$3" > b.norm
    awk 'NR == FNR { a[FNR] = $0; na = FNR; next }
         { b[FNR] = $0; nb = FNR }
         END {
             for (i = 1; i <= na || i <= nb; i++) {
                 x = i <= na ? a[i] : "END"; y = i <= nb ? b[i] : "END"
                 if (x != y) { print i - 1 "|" x "|" y; exit }
             }
             print "same"
         }' a.norm b.norm
}

# got_part DIFF_OUTPUT: the same from qtrace diff's output (the first
# pair that differs).
got_part() {
    awk -v ARGS="$ARGS" "$MASK_ARGS"'
         /^@@ / && !n { n = $(NF - 4); next }
         notime { $2 = "" }
         n && /^- / && !a { a = clean($0) }
         n && /^\+ / { print n "|" a "|" clean($0); exit }' \
        notime="$NOTIME" "$1"
}

# check_part WHAT A B [DIFF_OPTIONS [DUMP_EVENTS]]
check_part() {
    "$QTRACE" diff $4 "$2" "$3" > diff.out 2> diff.err
    st=$?
    want=$(expect_part "$2" "$3" "$5")
    if [ "$want" = same ]; then
        check_eq "$1: status (no difference in the dumps)" 0 "$st"
        return
    fi
    check_eq "$1: status" 1 "$st"
    check_eq "$1: where they part (records in common|A|B)" "$want" \
        "$(got_part diff.out)"
    # The context: the lines before, as the dump of A has them.
    n=${want%%|*}
    c=5
    [ "$n" -lt 5 ] && c=$n
    check_eq "$1: the $c records before it" \
        "$(head -n "$n" a.norm | tail -n "$c")" \
        "$(awk -v ARGS="$ARGS" "$MASK_ARGS"'
                /^@@ / { on = 1; next }
                on && /^  / { if (notime) $1 = ""; print clean($0) }
                on && /^[-+]/ { exit }' notime="$NOTIME" diff.out)"
}

# 1. The same deterministic guest twice: identical. With QEMU's -seed,
# the random bytes the guest is given (AT_RANDOM, its stack guard) are
# the same too, and so are the dumps.
"$QTRACE" record -q -e "$EVENTS" -Q '-seed 1' -o s1.qtr -- "$SYSCALLS" \
    > /dev/null 2>&1
"$QTRACE" record -q -e "$EVENTS" -Q '-seed 1' -o s2.qtr -- "$SYSCALLS" \
    > /dev/null 2>&1
"$QTRACE" diff s1.qtr s2.qtr > diff.out 2> diff.err
check_eq "same guest twice: status" 0 "$?"
check_eq "same guest twice: stderr" "" "$(cat diff.err)"
check_eq "same guest twice: the dumps agree too" same \
    "$(expect_part s1.qtr s2.qtr)"
check_grep "same guest twice: identical, every compared record" \
    "^  stream [0-9]+ \\(vcpu 0\\) / stream [0-9]+ \\(vcpu 0\\): identical, $(wc -l < a.norm) records, $(grep -c ' exec_tb ' a.norm) blocks, " \
    diff.out
check_eq "same guest twice: last line" "the traces are identical" \
    "$(tail -n 1 diff.out)"
# Without -seed the stack guard differs, and some of it may be left in
# the registers of a call that reads none (aarch64's getpid): identical
# all the same, and the dumps differ in nothing else.
rec r1.qtr "$SYSCALLS"
rec r2.qtr "$SYSCALLS"
"$QTRACE" diff r1.qtr r2.qtr > diff.out 2> diff.err
check_eq "same guest, unseeded: status" 0 "$?"
"$QTRACE" dump -e syscall r1.qtr > r1.sys
"$QTRACE" dump -e syscall r2.qtr > r2.sys
check_eq "same guest, unseeded: dumps differ only in calls of no argument" "" \
    "$(diff r1.sys r2.sys | sed -n 's/^[<>] //p' |
       grep -Ev '\| (getpid|getppid|getuid|getgid|gettid)$')"
check_eq "same guest, unseeded: ... and in the order of calls" \
    "$(awk '{ print $2, $NF }' r1.sys)" "$(awk '{ print $2, $NF }' r2.sys)"
check_eq "same guest, unseeded: no other difference" same \
    "$(expect_part r1.qtr r2.qtr exec_tb,mem_access,syscall_ret)"
"$QTRACE" diff -q s1.qtr s2.qtr > diff.out
check_eq "-q: status" 0 "$?"
check_eq "-q: nothing printed" "" "$(cat diff.out)"

# 2. One program, another argument.
rec b5.qtr "$BUSY" 5
rec b6.qtr "$BUSY" 6
check_part "busy 5 / busy 6" b5.qtr b6.qtr
check_eq "busy 5 / busy 6: last line" "the traces differ" \
    "$(tail -n 1 diff.out)"
check_grep "busy 5 / busy 6: the summary's share of each stream" \
    'instructions in common: [0-9.]+% of b5\.qtr.s [0-9]+, [0-9.]+% of b6\.qtr.s [0-9]+$' \
    diff.out
check_part "busy 5 / busy 6, blocks only" b5.qtr b6.qtr "-c blocks" exec_tb
NOTIME=1
check_part "busy 5 / busy 6, system calls only" b5.qtr b6.qtr \
    "-c syscalls" syscall,syscall_ret
check_part "busy / syscalls, system calls only" b5.qtr s1.qtr \
    "-c syscalls" syscall,syscall_ret
NOTIME=
"$QTRACE" diff -q b5.qtr b6.qtr > diff.out
check_eq "-q, differ: status" 1 "$?"
check_eq "-q, differ: nothing printed" "" "$(cat diff.out)"

# 3. Two programs.
check_part "busy / syscalls" b5.qtr s1.qtr

# 4. A trace cut after the middle DATA chunk of its vCPU (kind 2, vcpu
# not 0xffffffff: not the translations), as t820 cuts; and one cut 40
# bytes into the next chunk. Small chunks, so that there are a few.
"$QTRACE" record -q -e "$EVENTS" -O chunk=64k -o whole.qtr -- "$BUSY" 20 \
    > /dev/null 2>&1
python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
off, data = struct.unpack_from("<I", d, 12)[0], []
while off + 32 <= len(d):
    kind, vcpu = struct.unpack_from("<HxxI", d, off + 4)
    n = struct.unpack_from("<I", d, off + 16)[0]
    if kind == 2 and vcpu != 0xffffffff:
        data.append(off + 32 + n)
    off += 32 + n
cut = data[len(data) // 2 - 1]
open(sys.argv[2], "wb").write(d[:cut])
open(sys.argv[3], "wb").write(d[:cut + 40])
print(len(data))' whole.qtr cut.qtr mid.qtr > chunks.n
check_grep "whole: a few chunks of the vCPU" '^([3-9]|[1-9][0-9]+)$' chunks.n
check_part "whole / cut" whole.qtr cut.qtr
check_grep "whole / cut: the cut stream ends" '^\+ \(end of cut\.qtr.s stream' \
    diff.out
check_grep "whole / cut: the warning of an incomplete trace" \
    '^qtrace diff: cut\.qtr: no END chunk, the trace is incomplete' diff.err
"$QTRACE" diff cut.qtr cut.qtr > diff.out 2> diff.err
check_eq "cut / cut: status" 0 "$?"
check_eq "cut / cut: a warning per trace" 2 \
    "$(grep -c 'no END chunk, the trace is incomplete' diff.err)"
"$QTRACE" diff whole.qtr mid.qtr > diff.out 2> diff.err
check_eq "a trace cut inside a chunk: status" 2 "$?"
check_grep "a trace cut inside a chunk: named" \
    '^qtrace diff: mid\.qtr: chunk [0-9]+ at offset 0x[0-9a-f]+: truncated' \
    diff.err

# 5. Streams in pairs, in the order they started.
rec c1.qtr "$CALLS"
"$QTRACE" diff c1.qtr c1.qtr > diff.out
check_eq "calls / itself: status" 0 "$?"
check_eq "calls / itself: three pairs, identical" 3 \
    "$(grep -c '^  stream .*: identical, ' diff.out)"
"$QTRACE" diff b5.qtr c1.qtr > diff.out
check_eq "busy / calls: status" 1 "$?"
check_eq "busy / calls: two streams without a pair" \
    "$(printf '%s\n' "of c1.qtr: no counterpart in b5.qtr (1 streams)" \
       "of c1.qtr: no counterpart in b5.qtr (1 streams)")" \
    "$(sed -n 's/^  stream [0-9]* (vcpu [0-9]*) \(of .*\)$/\1/p' diff.out)"

# 6. Misuse and trouble: status 2.
"$QTRACE" diff b5.qtr > diff.out 2> diff.err
check_eq "one trace: status" 2 "$?"
check_eq "one trace: message" "qtrace diff: expected two traces, A and B
try 'qtrace diff --help'" "$(cat diff.err)"
"$QTRACE" diff b5.qtr missing.qtr 2> diff.err
check_eq "missing trace: status" 2 "$?"
check_grep "missing trace: message" '^qtrace diff: missing\.qtr: ' diff.err
"$QTRACE" diff -c regs b5.qtr b6.qtr 2> diff.err
check_eq "-c regs: status" 2 "$?"
"$QTRACE" record -q -e 'vcpu_*' -o bare.qtr -- "$BUSY" 1 > /dev/null 2>&1
"$QTRACE" diff bare.qtr b5.qtr > diff.out 2> diff.err
check_eq "nothing to compare: status" 2 "$?"
check_grep "nothing to compare: message" '^qtrace diff: nothing to compare' \
    diff.err
finish
